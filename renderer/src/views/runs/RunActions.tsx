import { useState } from 'react';
import type { Run } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { describeError } from '../../api/errors';
import { routeHref } from '../../app/routes';
import { availableActions } from './run-actions';

interface Props {
  run: Run;
  onDelete: (run: Run) => void;
  onFork: (run: Run) => void;
  onChanged: () => void;
}

/** The buttons a run's status allows; an engine refusal is shown under them, in its words. */
export function RunActions({ run, onDelete, onFork, onChanged }: Props) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const actions = availableActions(run);

  const act = async (method: 'runs.start' | 'runs.cancel' | 'runs.resume') => {
    setBusy(true);
    setError(null);
    try {
      await api.call(method, { id: run.id });
      onChanged();
    } catch (e) {
      const { title, detail } = describeError(e);
      setError(`${title}: ${detail}`);
    } finally {
      setBusy(false);
    }
  };

  const label = (verb: string) => `${verb} run ${run.name}`;
  return (
    <div className="run-actions">
      {actions.includes('start') && (
        <button type="button" className="button button-small" onClick={() => act('runs.start')} disabled={busy} aria-label={label('Start')}>
          Start
        </button>
      )}
      {actions.includes('cancel') && (
        <button type="button" className="button button-small" onClick={() => act('runs.cancel')} disabled={busy} aria-label={label('Cancel')}>
          Cancel
        </button>
      )}
      {actions.includes('resume') && (
        <button type="button" className="button button-small" onClick={() => act('runs.resume')} disabled={busy} aria-label={label('Resume')}>
          Resume
        </button>
      )}
      {actions.includes('fork') && (
        <button type="button" className="button button-small" onClick={() => onFork(run)} disabled={busy} aria-label={label('Fork')}>
          Fork
        </button>
      )}
      {actions.includes('duplicate') && (
        <a
          className="button button-small"
          href={routeHref('new', { from: run.id })}
          aria-label={label('Duplicate and edit')}
          title={
            run.status === 'failed' && run.checkpoints.length === 0
              ? 'No checkpoint to resume from: open New run with this run’s knobs, change what failed, and start again'
              : 'Open New run with every knob of this run filled in'
          }
        >
          Duplicate and edit
        </a>
      )}
      {actions.includes('delete') && (
        <button type="button" className="button button-small button-quiet-danger" onClick={() => onDelete(run)} disabled={busy} aria-label={label('Delete')}>
          Delete
        </button>
      )}
      {error && (
        <p className="run-action-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

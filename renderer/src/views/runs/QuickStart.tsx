import { useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorNotice } from '../../components/Notice';
import { useCall } from '../../hooks/useCall';
import { quickstartCommand, quickstartConfig } from './quickstart';

/** The empty Runs view: what to do next, in one click or one command. */
export function QuickStart({ onCreated }: { onCreated: () => void }) {
  const api = useApi();
  const envs = useCall('envs.list', {});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const envIds = envs.data?.items.map((e) => e.id) ?? [];
  const noEnvs = envs.data !== undefined && envIds.length === 0;
  const config = quickstartConfig(envIds);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.call('runs.create', { config });
      onCreated();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <EmptyState title="No runs yet" testId="runs-empty">
      <p>
        A run trains a small agent on an environment&apos;s tools. The quickstart uses the <code>tiny</code> model preset and the{' '}
        <code>sft+envace</code> method: a supervised warm start on expert demonstrations, then world rehearsal.
      </p>
      {noEnvs ? (
        <p className="muted" data-testid="quickstart-no-envs">
          No environments are registered with this engine yet — the built-in environments arrive with the environments issue. Until then a run
          has nothing to train on.
        </p>
      ) : (
        <p>
          Environment: <strong>{envs.data ? config.env : '…'}</strong>
        </p>
      )}
      <div className="row">
        <button type="button" className="button button-primary" onClick={create} disabled={busy || !envs.data || noEnvs} data-testid="quickstart">
          {busy ? 'Creating…' : 'Create the quickstart run'}
        </button>
        <a className="button" href="#/new">
          Configure a run…
        </a>
      </div>
      <p className="muted">
        The run is stored with its resolved config as <em>created</em>; press <strong>Start</strong> on its row to train it here, with live
        curves on the Dashboard.
      </p>
      <p className="muted">Or from a terminal:</p>
      <pre className="cli" aria-label="Equivalent command line">
        <code>{quickstartCommand(config)}</code>
      </pre>
      {envs.error ? <ErrorNotice error={envs.error} onRetry={envs.reload} /> : null}
      {error ? <ErrorNotice error={error} /> : null}
    </EmptyState>
  );
}

import { useEffect, useRef, useState } from 'react';
import type { Run } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { ErrorNotice } from '../../components/Notice';
import { CheckpointSelect } from '../../components/RunCheckpointFields';

/** Fork: a new run that starts from one of this run's checkpoints. */
export function ForkDialog({ run, onDone, onCancel }: { run: Run; onDone: (child: Run) => void; onCancel: () => void }) {
  const api = useApi();
  const ref = useRef<HTMLDialogElement>(null);
  const last = run.checkpoints.at(-1)?.step ?? 0;
  const [step, setStep] = useState(last);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal?.();
  }, []);

  const fork = async () => {
    setBusy(true);
    setError(null);
    try {
      onDone(await api.call('runs.fork', { id: run.id, fromStep: step, name: name.trim() || undefined }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="fork-title"
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id="fork-title">Fork {run.name}</h2>
      <p>The new run starts training from the chosen checkpoint with the same config; this run is left as it is.</p>
      <div className="dialog-body form-rows">
        <CheckpointSelect run={run} label="From checkpoint" latest={false} value={String(step)} onChange={(v) => setStep(Number(v))} />
        <label className="field-inline">
          <span>Name</span>
          <input type="text" value={name} onChange={(e) => setName(e.target.value)} placeholder={`${run.name} ⑂ step ${step}`} />
        </label>
      </div>
      {error ? <ErrorNotice error={error} /> : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="button button-primary" onClick={fork} disabled={busy}>
          {busy ? 'Forking…' : 'Fork and train'}
        </button>
      </div>
    </dialog>
  );
}

import { useState } from 'react';
import { ENVS_TEST_SAMPLE, type EnvsTestOutput } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/Notice';
import { useElapsed } from '../../hooks/useElapsed';
import { formatDuration, formatWallTime } from '../../format/units';

const SPLIT_LABELS = [
  ['train', 'train'],
  ['heldout', 'held-out'],
  ['ood', 'OOD'],
] as const;

/** "Remove" with a confirmation step: the registration and its copied task and seed files go; nothing else does. */
export function RemoveEnvButton({ id, onRemoved }: { id: string; onRemoved: () => void }) {
  const api = useApi();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const close = () => {
    setConfirming(false);
    setError(null);
  };
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.call('envs.remove', { id });
      setConfirming(false);
      onRemoved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="button button-quiet-danger" onClick={() => setConfirming(true)} data-testid="env-remove">
        Remove
      </button>
      {confirming && (
        <ConfirmDialog
          open
          title="Remove this environment?"
          confirmLabel="Remove environment"
          busy={busy}
          error={error ? <ErrorNotice error={error} /> : null}
          onConfirm={remove}
          onCancel={close}
        >
          <p>
            <strong>{id}</strong> will no longer be listed or offered to new runs; the copies of its task and seed files in the data home are deleted.
            Your own files, the server itself and runs already trained on it are kept.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

/**
 * envs.test: connect, list tools, check the task file and replay gold trajectories through the real
 * server — a sample spread over each split by default (each replay may start a server), every task on request.
 */
export function EnvTestPanel({ id }: { id: string }) {
  const api = useApi();
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const [result, setResult] = useState<EnvsTestOutput | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [everyTask, setEveryTask] = useState(false);
  const elapsed = useElapsed(startedAt);

  const test = async () => {
    setStartedAt(Date.now());
    setError(null);
    setResult(null);
    try {
      setResult(await api.call('envs.test', everyTask ? { id } : { id, limit: ENVS_TEST_SAMPLE }));
    } catch (e) {
      setError(e);
    } finally {
      setStartedAt(null);
    }
  };

  return (
    <section className="env-test" aria-labelledby="env-test-title" data-testid="env-test">
      <h3 id="env-test-title">End-to-end check</h3>
      <p className="muted">
        Starts the server, lists its tools, checks the task file and replays gold trajectories through it ({ENVS_TEST_SAMPLE} per split, spread over
        it, unless you ask for every task); a task whose replay fails cannot teach anything.
      </p>
      <div className="row">
        <button type="button" className="button" onClick={test} disabled={startedAt !== null} data-testid="env-test-run">
          {startedAt !== null ? 'Testing…' : result || error ? 'Test again' : 'Test'}
        </button>
        <label className="field-inline">
          <input type="checkbox" checked={everyTask} onChange={(e) => setEveryTask(e.target.checked)} disabled={startedAt !== null} data-testid="env-test-all" />
          <span>every task (a replay each; long on a big file)</span>
        </label>
        {startedAt !== null && (
          <span className="loading" role="status" data-testid="env-test-progress">
            <span className="spinner" aria-hidden="true" /> Replaying the gold trajectories through the server… {formatDuration(elapsed)}
          </span>
        )}
      </div>
      {error ? <ErrorNotice error={error} /> : null}
      {result && <EnvTestResult result={result} />}
    </section>
  );
}

function EnvTestResult({ result }: { result: EnvsTestOutput }) {
  const { split, failures } = result.oracle;
  const total = SPLIT_LABELS.reduce((n, [key]) => n + (split[key]?.total ?? 0), 0);
  const passed = SPLIT_LABELS.reduce((n, [key]) => n + (split[key]?.passed ?? 0), 0);
  const allPass = passed === total && failures.length === 0;
  return (
    <div className="env-test-result" data-testid="env-test-result">
      <p>
        <span className={`badge ${allPass ? 'badge-good' : 'badge-bad'}`}>
          {allPass ? 'every gold replay passes' : `${total - passed} of ${total} gold replays fail`}
        </span>{' '}
        <span className="muted">
          {result.tools.length} tools · took {formatWallTime(result.wallMs)}
        </span>
      </p>
      <p className="muted wrap-anywhere">Between episodes: {result.reset}</p>
      <table className="table env-test-splits" aria-label="Gold replays per split">
        <thead>
          <tr>
            <th scope="col">Split</th>
            <th scope="col">Passed</th>
          </tr>
        </thead>
        <tbody>
          {SPLIT_LABELS.map(([key, label]) => {
            const s = split[key];
            return (
              <tr key={key} data-split={key}>
                <th scope="row">{label}</th>
                <td>
                  {s && s.total > 0 ? `${s.passed}/${s.total}` : 'no tasks'}
                  {s?.of !== undefined && <span className="muted"> · a sample of {s.of.toLocaleString('en-US')}</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {failures.length > 0 && (
        <>
          <h4>Failing tasks</h4>
          <ul className="env-test-failures" data-testid="env-test-failures">
            {failures.map((f, i) => (
              <li key={`${f.taskId}-${i}`}>
                <code>{f.taskId}</code> <span className="wrap-anywhere">{f.reason}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

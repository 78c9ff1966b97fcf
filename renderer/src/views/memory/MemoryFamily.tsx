import { useState } from 'react';
import { outcomeLabel } from '../../format/outcome';
import type { Memory, MethodOutput } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { JobProgress } from '../../components/JobProgress';
import { ErrorNotice } from '../../components/Notice';
import { RelativeTime } from '../../components/RelativeTime';
import { formatNumber } from '../../format/units';
import { type CallState, useCall } from '../../hooks/useCall';
import { useJobWatch, type JobWatch } from '../../hooks/useJobWatch';
import { RolloutDetail } from '../trajectories/RolloutDetail';
import { splitMemoryRollouts, versionFamily } from './memory-history';

type CommitOutput = MethodOutput<'memories.commit'>;

/** Every version of this memory, oldest first, with where each came from. */
function VersionHistory({ family, current }: { family: Memory[]; current: number }) {
  return (
    <section className="card" aria-labelledby="memory-versions">
      <h3 id="memory-versions">Versions</h3>
      <ol className="version-list" data-testid="memory-versions">
        {family.map((m) => (
          <li key={m.id} aria-current={m.id === current ? 'true' : undefined}>
            <a href={routeHref('memory', { id: String(m.id) })}>v{m.version}</a> <span className="muted">#{m.id}</span> ·{' '}
            {m.source === 'edit' ? `edited from v${family.find((p) => p.id === m.parentId)?.version ?? `#${m.parentId}`}` : 'built from rehearsals'} · <RelativeTime time={m.createdAt} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The private rehearsals the memory was built from; each is a rollout, opened inline. */
function ImaginedTrajectories({ ids }: { ids: number[] }) {
  const [open, setOpen] = useState<number | null>(null);
  if (ids.length === 0) return null;
  const shown = open !== null && ids.includes(open) ? open : ids[0]!;
  return (
    <section className="card" aria-labelledby="memory-rehearsals" data-testid="memory-rehearsals">
      <h3 id="memory-rehearsals">Imagined trajectories ({ids.length})</h3>
      <div className="segmented" role="tablist" aria-label="Rehearsals">
        {ids.map((id, i) => (
          <button key={id} type="button" role="tab" aria-selected={id === shown} className={`tab${id === shown ? ' tab-selected' : ''}`} onClick={() => setOpen(id)}>
            rehearsal {i + 1}
          </button>
        ))}
      </div>
      <RolloutDetail key={shown} id={shown} />
    </section>
  );
}

/** Before Commit: the memory's tokens against the room the prompt leaves it, and the mode chosen to fit. */
function FitNotice({ fit }: { fit: CallState<MethodOutput<'memories.fit'>> }) {
  if (fit.error) return <ErrorNotice error={fit.error} onRetry={fit.reload} />;
  if (!fit.data) return <p className="muted" role="status">Counting the memory's tokens against the room the prompt leaves…</p>;
  return (
    <p className={`notice ${fit.data.cut ? 'notice-warn' : 'notice-info'}`} role="status" data-testid="commit-fit">
      {fit.data.reason}.
    </p>
  );
}

function CommitControl({ memory, onCommitted }: { memory: Memory; onCommitted: (result: CommitOutput) => void }) {
  const api = useApi();
  // null: the mode chosen to fit (memories.fit), until the user picks one.
  const [picked, setPicked] = useState<'prompt' | 'plan' | null>(null);
  const [watch, setWatch] = useState<JobWatch | null>(null);
  const [error, setError] = useState<unknown>(null);
  const job = useJobWatch(watch);
  const fit = useCall('memories.fit', memory.runId === null ? null : { memoryId: memory.id, runId: memory.runId });
  if (memory.runId === null) return <p className="muted">This memory names no run, so there is no policy to commit it with.</p>;
  const runId = memory.runId;
  const commit = picked ?? fit.data?.commit ?? 'prompt';
  const run = async () => {
    setWatch({ kind: 'evaluate', runId, since: Date.now() });
    setError(null);
    try {
      // Not picked by hand: the engine chooses to fit, as the notice above said.
      onCommitted(await api.call('memories.commit', { memoryId: memory.id, runId, ...(picked ? { commit: picked } : {}) }));
    } catch (e) {
      setError(e);
    } finally {
      setWatch(null);
    }
  };
  return (
    <div className="commit-control" data-testid="commit-control">
      <div className="row">
        <fieldset className="segmented" aria-label="Commit mode">
          <label title="the memory goes into the prompt as a memory block">
            <input type="radio" name="commit-mode" checked={commit === 'prompt'} onChange={() => setPicked('prompt')} />
            memory in the prompt
          </label>
          <label title="follow the consensus plan until a real observation disagrees, then the policy takes over">
            <input type="radio" name="commit-mode" checked={commit === 'plan'} onChange={() => setPicked('plan')} />
            follow the plan
          </label>
        </fieldset>
        <button type="button" className="button button-primary" onClick={run} disabled={watch !== null} data-testid="commit-submit">
          Commit a real run with v{memory.version}
        </button>
      </div>
      <FitNotice fit={fit} />
      {picked && fit.data && picked !== fit.data.commit && (
        <p className="muted" data-testid="commit-override">
          You picked {picked === 'plan' ? 'follow the plan' : 'memory in the prompt'} over the {fit.data.commit} commit chosen to fit.
        </p>
      )}
      {watch && <JobProgress job={job} since={watch.since} what={`committing task ${memory.taskId} with memory v${memory.version}`} />}
      {error ? <ErrorNotice error={error} /> : null}
    </div>
  );
}

/**
 * Around one memory: its versions, the rehearsals it was built from, committing a real run with
 * it, and every earlier commit of the family with the version it used.
 */
export function MemoryFamily({ memory }: { memory: Memory }) {
  const siblings = useCall('memories.list', { taskId: memory.taskId, ...(memory.runId ? { runId: memory.runId } : {}), limit: 500 });
  const rollouts = useCall('trajectories.list', memory.runId ? { runId: memory.runId, taskId: memory.taskId, mode: 'test-time', limit: 1000 } : null);
  const [latest, setLatest] = useState<CommitOutput | null>(null);
  const family = versionFamily(siblings.data?.items ?? [memory], memory.id);
  const { rehearsals, commits } = splitMemoryRollouts(rollouts.data?.items ?? [], family);
  const versionOf = (memoryId: number | null) => family.find((m) => m.id === memoryId)?.version;

  return (
    <div className="memory-family">
      {siblings.error ? <ErrorNotice error={siblings.error} onRetry={siblings.reload} /> : null}
      {rollouts.error ? <ErrorNotice error={rollouts.error} onRetry={rollouts.reload} /> : null}
      <section className="card" aria-labelledby="memory-commits">
        <h3 id="memory-commits">Commit a real run</h3>
        <CommitControl
          memory={memory}
          onCommitted={(result) => {
            setLatest(result);
            rollouts.reload();
          }}
        />
        {latest && latest.memoryId === memory.id && (
          <p className="notice notice-info" data-testid="commit-outcome">
            Committed with v{memory.version} ({latest.commit === 'plan' ? 'followed the plan' : 'memory in the prompt'}): {latest.success ? 'succeeded' : 'failed'} · reward {formatNumber(latest.reward)} · {latest.envCalls} env calls
            {latest.fellBackAtTurn !== null ? ` · left the plan at turn ${latest.fellBackAtTurn}` : ''} ·{' '}
            <a href={routeHref('trajectories', { run: memory.runId ?? undefined, rollout: String(latest.rolloutId) })}>open rollout {latest.rolloutId}</a>
          </p>
        )}
        {latest && latest.memoryId === memory.id && latest.memoryTokens.kept < latest.memoryTokens.total && (
          <p className="notice notice-warn" role="status" data-testid="commit-memory-cut">
            The memory is {latest.memoryTokens.total} tokens; the model's context left room for the last {latest.memoryTokens.kept}, so
            its beginning was not in the prompt. Shorten it, or commit from a model with a longer context.
          </p>
        )}
        {commits.length > 0 ? (
          <table className="table" data-testid="memory-commit-list">
            <thead>
              <tr>
                <th scope="col">Rollout</th>
                <th scope="col">Memory</th>
                <th scope="col">Outcome</th>
                <th scope="col" className="numeric">
                  Reward
                </th>
                <th scope="col" className="numeric">
                  Env calls
                </th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {commits.map((r) => (
                <tr key={r.id} data-rollout-id={r.id}>
                  <td>
                    <a href={routeHref('trajectories', { run: r.runId ?? undefined, rollout: String(r.id) })}>#{r.id}</a>
                  </td>
                  <td>v{versionOf(r.memoryId) ?? '?'}</td>
                  <td>{outcomeLabel(r)}</td>
                  <td className="numeric">{formatNumber(r.reward)}</td>
                  <td className="numeric">{r.envCalls}</td>
                  <td>
                    <RelativeTime time={r.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">No real run has been committed with this memory yet.</p>
        )}
      </section>
      <VersionHistory family={family} current={memory.id} />
      <ImaginedTrajectories ids={rehearsals.map((r) => r.id)} />
    </div>
  );
}

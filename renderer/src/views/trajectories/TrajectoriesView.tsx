import { useState } from 'react';
import { RolloutMode } from '../../../../electron/contract';
import { routeHref } from '../../app/routes';
import { navigate } from '../../app/useHashRoute';
import { EmptyState, ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { formatNumber } from '../../format/units';
import { useCall } from '../../hooks/useCall';
import { useThrottledEvents } from '../../hooks/useEvents';
import { RolloutDetail } from './RolloutDetail';

function RunPicker({ runId }: { runId?: string }) {
  const runs = useCall('runs.list', { limit: 200 });
  if (!runs.data) return null;
  return (
    <label className="field-inline">
      <span>Run</span>
      <select value={runId ?? ''} onChange={(e) => navigate(routeHref('trajectories', { run: e.target.value || undefined }))}>
        <option value="">all runs</option>
        {runs.data.items.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name} ({r.id})
          </option>
        ))}
      </select>
    </label>
  );
}

function optionalNumber(text: string): number | undefined {
  const n = Number(text);
  return text.trim() === '' || !Number.isFinite(n) ? undefined : n;
}

/** Browse rollouts by run, step, task, mode and reward; open one as a timeline of turns. */
export function TrajectoriesView({ runId, rolloutId }: { runId?: string; rolloutId?: string }) {
  const [step, setStep] = useState('');
  const [taskId, setTaskId] = useState('');
  const [mode, setMode] = useState<RolloutMode | ''>('');
  const [minReward, setMinReward] = useState('');
  const stepNumber = optionalNumber(step);
  const list = useCall('trajectories.list', {
    runId,
    step: stepNumber !== undefined && Number.isInteger(stepNumber) && stepNumber >= 0 ? stepNumber : undefined,
    taskId: taskId.trim() || undefined,
    mode: mode || undefined,
    minReward: optionalNumber(minReward),
    limit: 200,
  });
  useThrottledEvents(['run.trajectory'], list.reload, 1000);
  const selected = rolloutId !== undefined ? Number(rolloutId) : undefined;
  const items = list.data?.items ?? [];

  return (
    <>
      <PageHeader title="Trajectories" subtitle="What the agent did and what it imagined, turn by turn" actions={<RunPicker runId={runId} />} />
      <div className="filters" role="search">
        <label className="field-inline">
          <span>Step</span>
          <input type="text" inputMode="numeric" value={step} onChange={(e) => setStep(e.target.value)} />
        </label>
        <label className="field-inline">
          <span>Task</span>
          <input type="text" value={taskId} onChange={(e) => setTaskId(e.target.value)} />
        </label>
        <label className="field-inline">
          <span>Mode</span>
          <select value={mode} onChange={(e) => setMode(e.target.value as RolloutMode | '')}>
            <option value="">any</option>
            {RolloutMode.options.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label className="field-inline">
          <span>Reward ≥</span>
          <input type="text" inputMode="decimal" value={minReward} onChange={(e) => setMinReward(e.target.value)} />
        </label>
      </div>
      {list.error ? <ErrorNotice error={list.error} onRetry={list.reload} /> : null}
      {!list.data && !list.error && <Loading what="rollouts" />}
      {list.data && list.data.total === 0 && (
        <EmptyState title="No rollouts" testId="trajectories-empty">
          <p>
            {runId ? 'This run has' : 'No run has'} stored no rollouts{step || taskId || mode || minReward ? ' matching these filters' : ''}. Training writes every
            rollout of every step here as it trains; start a run from the Runs table.
          </p>
        </EmptyState>
      )}
      {items.length > 0 && (
        <div className="split">
          <ul className="list" aria-label="Rollouts" data-testid="rollouts">
            {items.map((r) => (
              <li key={r.id}>
                <a href={routeHref('trajectories', { run: runId, rollout: String(r.id) })} className="list-item" aria-current={r.id === selected ? 'true' : undefined}>
                  <span className="list-title">
                    #{r.id} <code>{r.taskId}</code> <span className="badge badge-neutral">{r.mode}</span>
                  </span>
                  <span className="muted">
                    step {r.step ?? '—'} · reward {formatNumber(r.reward)} · {r.turnCount} turns · {r.envCalls} env calls
                  </span>
                </a>
              </li>
            ))}
            {list.data && list.data.total > items.length && <li className="muted">showing {items.length} of {list.data.total}; narrow the filters to see others</li>}
          </ul>
          <div>{selected !== undefined && Number.isInteger(selected) && selected > 0 ? <RolloutDetail id={selected} /> : <p className="muted">Pick a rollout to see its turns.</p>}</div>
        </div>
      )}
    </>
  );
}

import { useEffect, useRef, useState } from 'react';
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

/** What the empty list means, in one positive sentence (which run, and whether filters narrowed it). */
export function emptyMessage(oneRun: boolean, filtered: boolean): string {
  if (filtered) return oneRun ? 'No rollout of this run matches these filters.' : 'No stored rollout matches these filters.';
  return oneRun ? 'This run has not stored any rollouts yet.' : 'No run has stored any rollouts yet.';
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
  const selectedId = selected !== undefined && Number.isInteger(selected) && selected > 0 ? selected : undefined;
  const shown = items.length > 0;
  const detailPane = useRef<HTMLDivElement>(null);
  // The list scrolls on its own, but the page may still be scrolled past the detail's top (a long
  // detail, a narrow window): a click on a rollout must land the person on what it opened.
  useEffect(() => {
    const pane = detailPane.current;
    if (selectedId === undefined || !shown || !pane) return;
    const top = pane.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight * 0.6) pane.scrollIntoView?.({ block: 'start' });
  }, [selectedId, shown]);

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
            {emptyMessage(runId !== undefined, Boolean(step || taskId || mode || minReward))} Training writes every rollout of every step here as it
            trains; start a run from the Runs table.
          </p>
        </EmptyState>
      )}
      {shown && (
        <div className="split rollouts-split">
          <div className="rollout-list-pane">
            <ul className="list" aria-label="Rollouts" data-testid="rollouts">
              {items.map((r) => (
                <li key={r.id}>
                  <a
                    href={routeHref('trajectories', { run: runId, rollout: String(r.id) })}
                    className="list-item"
                    aria-current={r.id === selected ? 'true' : undefined}
                  >
                    <span className="list-title">
                      #{r.id} <code>{r.taskId}</code> <span className="badge badge-neutral">{r.mode}</span>
                    </span>
                    <span className="muted">
                      step {r.step ?? '—'} · reward {formatNumber(r.reward)} · {r.turnCount} turns · {r.envCalls} env calls
                    </span>
                  </a>
                </li>
              ))}
              {list.data && list.data.total > items.length && (
                <li className="muted">
                  showing {items.length} of {list.data.total}; narrow the filters to see others
                </li>
              )}
            </ul>
          </div>
          <div className="rollout-detail-pane" ref={detailPane}>
            {selectedId !== undefined ? <RolloutDetail id={selectedId} /> : <p className="muted">Pick a rollout to see its turns.</p>}
          </div>
        </div>
      )}
    </>
  );
}

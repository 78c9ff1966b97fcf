import { useEffect, useState } from 'react';
import type { Run, RunConfig } from '../../../../electron/contract';
import { routeHref } from '../../app/routes';
import { navigate } from '../../app/useHashRoute';
import { LineChart, type RunLine } from '../../charts/LineChart';
import { orderKeys } from '../../charts/series';
import { EmptyState, ErrorNotice, Loading } from '../../components/Notice';
import { Elapsed } from '../../components/Elapsed';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { explainMetric } from '../../format/metric-glossary';
import { formatDuration } from '../../format/units';
import { useCall } from '../../hooks/useCall';
import { useEvent, useThrottledEvents } from '../../hooks/useEvents';
import { useRunMetrics } from '../../hooks/useRunMetrics';
import { parseCompare } from './compare';
import { configDiff } from './config-diff';
import { preselectedRun, remember, remembered } from './preselect';
import { ResultCard } from './ResultCard';
import { RunLog } from './RunLog';
import { alignToStage, alignmentLabels, stageProgress, type Alignment } from './stages';

/** The held-out success metric the engine writes when evalEvery > 0 (context.ts finishStep). */
const SUCCESS = 'eval/success';

function RunPicker({ runId, runs }: { runId?: string; runs: Run[] }) {
  return (
    <label className="field-inline">
      <span>Run</span>
      <select value={runId ?? ''} onChange={(e) => navigate(routeHref('dashboard', { run: e.target.value }))} data-testid="dashboard-run">
        <option value="" disabled>
          choose a run…
        </option>
        {runs.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name} ({r.id})
          </option>
        ))}
      </select>
    </label>
  );
}

function RunHeader({ runId }: { runId: string }) {
  const run = useCall('runs.get', { id: runId });
  useThrottledEvents(['run.status', 'run.progress'], run.reload, 1000);
  // What the trainer is doing now (recording demonstrations, building the model, a stage's first step), live from run.progress.
  const [phase, setPhase] = useState<{ runId: string; text: string } | null>(null);
  useEvent('run.progress', (p) => {
    if (p.runId === runId) setPhase({ runId, text: p.phase });
  });
  if (run.error) return <ErrorNotice error={run.error} onRetry={run.reload} />;
  if (!run.data) return null;
  const r = run.data;
  return (
    <div className="card row run-header">
      <span className="row">
        <strong>{r.name}</strong> <StatusBadge status={r.status} /> <code>{r.algo}</code> on <strong>{r.env}</strong> · {r.model}
      </span>
      <span className="progress-cell">
        <progress max={1} value={r.totalSteps ? r.currentStep / r.totalSteps : 0} aria-label="training progress" />
        <span className="numeric">
          step {r.currentStep}/{r.totalSteps}
        </span>
        {r.etaMs !== null && r.status === 'running' && <span className="muted">ETA {formatDuration(r.etaMs)}</span>}
      </span>
      {r.status === 'running' && (
        <span className="muted" data-testid="run-phase" aria-live="polite">
          {phase?.runId === runId ? phase.text : r.currentStep === 0 ? 'setting up' : 'training'}
          {r.startedAt !== null && <> · <Elapsed since={r.startedAt} /> elapsed</>}
        </span>
      )}
      <span className="muted" data-testid="run-stages" title="Stages in training order, steps done in each">
        {stageProgress(r.config, r.currentStep)}
      </span>
      {r.error && (
        <p className="notice notice-error" data-testid="run-failure">
          <strong>{r.status === 'failed' ? 'Why it failed' : 'Last error'}:</strong> {r.error}{' '}
          <a href={routeHref('new', { from: r.id })}>Duplicate and edit</a>
        </p>
      )}
    </div>
  );
}

/** What differs between the compared runs' configs: the knobs to read the curves by. */
function CompareConfigs({ ids, names, configs }: { ids: string[]; names: Map<string, string>; configs: Map<string, RunConfig> }) {
  if (!ids.every((id) => configs.has(id))) return null;
  const rows = configDiff(ids.map((id) => configs.get(id)));
  return (
    <details className="card config-diff" open data-testid="config-diff">
      <summary>
        <strong>Config differences</strong> <span className="muted">({rows.length === 0 ? 'identical configs' : `${rows.length} knob${rows.length === 1 ? '' : 's'}`})</span>
      </summary>
      {rows.length > 0 && (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">knob</th>
                {ids.map((id) => (
                  <th key={id} scope="col">
                    {names.get(id) ?? id}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.path}>
                  <td>
                    <code>{row.path}</code>
                  </td>
                  {row.values.map((v, i) => (
                    <td key={ids[i]} className="mono">
                      {v}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}

/**
 * Live curves of one run (stored history plus run.metrics as it arrives), optionally overlaid
 * with compared runs; smoothing, log-x and hover values.
 */
export function DashboardView({ runId, compare }: { runId?: string; compare?: string }) {
  const [smoothing, setSmoothing] = useState(0.6);
  const [logX, setLogX] = useState(false);
  const [alignChoice, setAlignChoice] = useState<Alignment | null>(null);
  const runs = useCall('runs.list', { limit: 500 });
  const compared = parseCompare(compare, runId);
  const ids = runId ? [runId, ...compared] : [];
  const metrics = useRunMetrics(ids);
  const names = new Map((runs.data?.items ?? []).map((r) => [r.id, r.name]));
  const configs = new Map<string, RunConfig>((runs.data?.items ?? []).map((r) => [r.id, r.config]));
  // Absolute steps by default, compared or not: aligning to the last stage drops every point before it (a run's
  // SFT warm start, its held-out evaluations there and at step 0); the x-axis picker offers the stage views.
  const alignment: Alignment = alignChoice ?? 'absolute';
  const watched = runId ? configs.get(runId) : undefined;
  // eval/success has its own card above the grid, with an empty state when the run never evaluates.
  const keys = orderKeys([...new Set(ids.flatMap((id) => Object.keys(metrics.series[id] ?? {})))]).filter((k) => k !== SUCCESS);
  const linesFor = (key: string): RunLine[] =>
    ids.filter((id) => metrics.series[id]?.[key]).map((id) => ({ label: names.get(id) ?? id, ...alignToStage(metrics.series[id]![key]!, configs.get(id), alignment) }));
  const successLines = linesFor(SUCCESS).filter((l) => l.steps.length > 0);
  // Opened without a run (the sidebar link): the one last watched, else one training now, else the newest.
  const fallback = runs.data && !runId ? preselectedRun(runs.data.items, remembered()) : null;
  useEffect(() => {
    if (fallback) window.history.replaceState(null, '', routeHref('dashboard', { run: fallback }));
    if (fallback) window.dispatchEvent(new HashChangeEvent('hashchange'));
  }, [fallback]);
  useEffect(() => {
    if (runId) remember(runId);
  }, [runId]);

  return (
    <>
      <PageHeader
        title="Dashboard"
        subtitle="Reward, success, loss terms and throughput, live while a run trains"
        actions={runs.data ? <RunPicker runId={runId} runs={runs.data.items} /> : null}
      />
      {!runId && runs.data?.items.length === 0 && (
        <EmptyState title="No runs yet" testId="dashboard-pick">
          <p>
            Curves appear here while a run trains. Start with the Quickstart on the <a href={routeHref('runs')}>Runs</a> page (one click, a few minutes),
            or configure one in <a href={routeHref('new')}>New run</a>.
          </p>
        </EmptyState>
      )}
      {!runId && runs.data && runs.data.items.length > 0 && (
        <EmptyState title="Pick a run" testId="dashboard-pick">
          <p>Choose a run above, or open one from the Runs table, to see its curves. Select several runs there to compare them here.</p>
        </EmptyState>
      )}
      {runId && <RunHeader runId={runId} />}
      {runId && !metrics.loading && <ResultCard runId={runId} success={metrics.series[runId]?.[SUCCESS]} />}
      {compared.length > 0 && (
        <p className="notice notice-info" data-testid="comparing">
          Comparing with {compared.map((id) => names.get(id) ?? id).join(', ')}.{' '}
          <a href={routeHref('dashboard', { run: runId })}>Show only {runId && (names.get(runId) ?? runId)}</a>
        </p>
      )}
      {compared.length > 0 && runId && <CompareConfigs ids={ids} names={names} configs={configs} />}
      {runId && metrics.error ? <ErrorNotice error={metrics.error} onRetry={metrics.reload} /> : null}
      {runId && metrics.loading && <Loading what="metrics" />}
      {runId && !metrics.loading && !metrics.error && keys.length === 0 && (
        <EmptyState title="No metrics yet" testId="dashboard-no-metrics">
          <p>
            This run has not written any metrics yet. Curves appear here live as soon as training writes its first step; before that it sets
            up (demonstrations, tokenizer, model — the line above says which), and a created run starts from the Runs table.
          </p>
        </EmptyState>
      )}
      {runId && !metrics.loading && !metrics.error && (
        <section className="card chart-card" data-metric={SUCCESS} data-testid="success-card">
          <h3 title={explainMetric(SUCCESS)}>Held-out success ({SUCCESS})</h3>
          {successLines.length > 0 ? (
            <LineChart metric={SUCCESS} lines={successLines} smoothing={0} logX={logX} />
          ) : !watched ? (
            // The run's config (from runs.list) says whether it evaluates; until it arrives, claim nothing.
            <Loading what="the run's config" />
          ) : watched.evalEvery > 0 ? (
            <p className="muted" data-testid="success-pending">
              This run evaluates on held-out tasks before its first step and every {watched.evalEvery} steps after; the first point (step 0, the
              untrained model) appears once setup is done.
            </p>
          ) : (
            <p className="muted" data-testid="success-empty">
              No success curve: this run does not evaluate on held-out tasks (<code>evalEvery</code> is 0). Set <code>evalEvery</code> (e.g. 10) in
              New run to measure held-out success every N steps — the recommended recipes do; for this run use{' '}
              <a href={routeHref('new', { from: runId })}>Duplicate and edit</a>, or run one evaluation from <a href={routeHref('evaluate', { run: runId })}>Evaluate</a>.
            </p>
          )}
        </section>
      )}
      {keys.length > 0 && (
        <>
          <div className="chart-controls">
            <label className="field-inline">
              <span>Smoothing</span>
              <input type="range" min={0} max={0.99} step={0.01} value={smoothing} onChange={(e) => setSmoothing(Number(e.target.value))} />
              <span className="numeric">{smoothing.toFixed(2)}</span>
            </label>
            <label className="field-inline">
              <input type="checkbox" checked={logX} onChange={(e) => setLogX(e.target.checked)} />
              <span>log-scaled steps</span>
            </label>
            {compared.length > 0 && (
              <label className="field-inline">
                <span>x axis</span>
                <select value={alignment} onChange={(e) => setAlignChoice(e.target.value as Alignment)} data-testid="compare-align">
                  {(Object.keys(alignmentLabels) as Alignment[]).map((a) => (
                    <option key={a} value={a}>
                      {alignmentLabels[a]}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <a href={routeHref('trajectories', { run: runId })}>Trajectories of this run →</a>
            <a href={routeHref('evaluate', { run: runId })}>Evaluate →</a>
            <a href={routeHref('export', { run: runId })}>Export →</a>
          </div>
          <div className="chart-grid" data-testid="charts">
            {keys.map((key) => (
              <section key={key} className="card chart-card" data-metric={key}>
                <h3 title={explainMetric(key) || undefined}>{key}</h3>
                <LineChart metric={key} lines={linesFor(key)} smoothing={smoothing} logX={logX} />
              </section>
            ))}
          </div>
        </>
      )}
      {runId && <RunLog key={runId} runId={runId} />}
    </>
  );
}

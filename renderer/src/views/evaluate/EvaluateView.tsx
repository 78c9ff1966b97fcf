import { CheckpointSelect, RunSelect } from '../../components/RunCheckpointFields';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { SEED_MAX, type MethodInput } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { JobProgress } from '../../components/JobProgress';
import { EmptyState, ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { RelativeTime } from '../../components/RelativeTime';
import { formatNumber, formatPercent, formatWallTime } from '../../format/units';
import { useCall } from '../../hooks/useCall';
import { useSettingsDefaults } from '../../hooks/useSettingsDefaults';
import { useEvent, useThrottledEvents } from '../../hooks/useEvents';
import { useJobWatch, type JobWatch } from '../../hooks/useJobWatch';
import { exportableRuns } from '../export/export-form';
import { LineChart } from '../../charts/LineChart';
import { RobustnessTable } from './RobustnessTable';
import { describeSetting, formatPoints, rehearsalGain, successBySetting, type StoredEval } from './eval-table';

type Split = NonNullable<MethodInput<'evals.run'>['split']>;

function PerTask({ result }: { result: StoredEval }) {
  return (
    <details>
      <summary>
        {result.perTask.length} task{result.perTask.length === 1 ? '' : 's'}
      </summary>
      <ul className="per-task">
        {result.perTask.map((t) => (
          <li key={t.taskId}>
            {t.success ? '✓' : '✗'} <code>{t.taskId}</code> score {formatPercent(t.score)} · {t.envCalls} env calls
            {t.rolloutId !== null && (
              <>
                {' '}
                · <a href={routeHref('trajectories', { run: result.runId, rollout: String(t.rolloutId) })}>rollout</a>
              </>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Success along training for one run, one line per setting; drawn once a setting has two checkpoints. */
function SuccessByStep({ items, runId, runName }: { items: StoredEval[]; runId: string; runName: string }) {
  const lines = successBySetting(items, runId);
  if (!lines.some((l) => l.steps.length >= 2)) {
    return <p className="muted">Evaluate {runName} at two or more checkpoints to see its success along training, with and without rehearsal.</p>;
  }
  return (
    <section className="card chart-card" data-metric="eval-success" aria-labelledby="eval-success-title">
      <h3 id="eval-success-title">Success by checkpoint · {runName}</h3>
      <LineChart metric="success" lines={lines} smoothing={0} logX={false} />
    </section>
  );
}

function ResultsTable({ items, runNames }: { items: StoredEval[]; runNames: Map<string, string> }) {
  return (
    <div className="table-wrap">
      <table className="table eval-table" data-testid="eval-table">
        <thead>
          <tr>
            <th scope="col">Run · step</th>
            <th scope="col">Setting</th>
            <th scope="col" className="numeric">
              Success
            </th>
            <th scope="col" className="numeric" title="success minus the same evaluation without rehearsal">
              vs no rehearsal
            </th>
            <th scope="col" className="numeric">
              Mean score
            </th>
            <th scope="col" className="numeric">
              Invalid actions
            </th>
            <th scope="col" className="numeric">
              Env calls / task
            </th>
            <th scope="col" className="numeric">
              Tokens / task
            </th>
            <th scope="col" className="numeric">
              Wall time
            </th>
            <th scope="col" className="numeric" title="how close imagined observations were to the real ones">
              Fidelity
            </th>
            <th scope="col">Tasks</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e) => (
            <tr key={e.id} data-eval-id={e.id}>
              <td>
                <a href={routeHref('dashboard', { run: e.runId })} title={e.runId}>
                  {runNames.get(e.runId) ?? e.runId}
                </a>{' '}
                · step {e.step}
              </td>
              <td>{describeSetting(e)}</td>
              <td className="numeric" data-col="success">
                {formatPercent(e.success)}
              </td>
              <td className="numeric">{formatPoints(rehearsalGain(e, items))}</td>
              <td className="numeric" data-col="score">
                {formatPercent(e.meanScore)}
              </td>
              <td className="numeric">{formatPercent(e.invalidActionRate)}</td>
              <td className="numeric">{formatNumber(e.envCallsPerTask)}</td>
              <td className="numeric">{formatNumber(e.tokensPerTask)}</td>
              <td className="numeric">{formatWallTime(e.wallMs)}</td>
              <td className="numeric">{e.fidelity === null ? '—' : formatPercent(e.fidelity)}</td>
              <td>
                <PerTask result={e} />
              </td>
              <td>
                <RelativeTime time={e.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Held-out evaluation in the real environment, with or without test-time rehearsal, and every result so far. */
/**
 * Whether tasks with a stored memory of this run (rehearsed or hand-edited in the Memory view) are
 * committed with its newest version instead of rehearsing anew: how an edited memory is measured.
 */
function StoredMemories({ runId, value, onChange }: { runId: string; value: 'rehearse' | 'stored'; onChange: (v: 'rehearse' | 'stored') => void }) {
  const memories = useCall('memories.list', { runId, limit: 500 });
  const tasks = new Set((memories.data?.items ?? []).map((m) => m.taskId)).size;
  if (tasks === 0) return null;
  return (
    <label className="field-inline" title="the newest version of each task's memory: an edit in the Memory view is a new version">
      <input
        type="checkbox"
        checked={value === 'stored'}
        onChange={(e) => onChange(e.target.checked ? 'stored' : 'rehearse')}
        data-testid="eval-stored-memories"
      />
      <span>
        use the stored memories ({tasks} task{tasks === 1 ? '' : 's'})
      </span>
    </label>
  );
}

export function EvaluateView({ runId: linkedRun, step: linkedStep }: { runId?: string; step?: string }) {
  const api = useApi();
  const runs = useCall('runs.list', { limit: 200 });
  const results = useCall('evals.list', {});
  // New checkpoints make runs evaluable; evaluations started elsewhere (the CLI, another window) join the table.
  useThrottledEvents(['run.status'], runs.reload, 2000);
  useEvent('job.update', (job) => {
    if (job.kind === 'evaluate' && job.state === 'completed') results.reload();
  });
  const candidates = exportableRuns(runs.data?.items ?? []);
  // A link (#/evaluate?run=…&step=…) preselects its run and checkpoint.
  const [runId, setRunId] = useState(linkedRun ?? '');
  const run = candidates.find((r) => r.id === runId) ?? candidates[0];
  const [step, setStep] = useState(linkedStep && /^\d+$/.test(linkedStep) ? linkedStep : '');
  const [split, setSplit] = useState<Split>('heldout');
  const [limit, setLimit] = useState('');
  // The Settings view's split and limit, once they arrive, unless the person changed either first.
  const stored = useSettingsDefaults();
  const choiceTouched = useRef(false);
  useEffect(() => {
    if (!stored || choiceTouched.current) return;
    choiceTouched.current = true;
    setSplit(stored.evaluate.split);
    setLimit(stored.evaluate.limit === null ? '' : String(stored.evaluate.limit));
  }, [stored]);
  const [rehearsals, setRehearsals] = useState(0);
  const [mode, setMode] = useState<'parallel' | 'sequential'>('parallel');
  const [commit, setCommit] = useState<'prompt' | 'plan' | 'safe'>('safe');
  const [memorySource, setMemorySource] = useState<'rehearse' | 'stored'>('rehearse');
  const [seed, setSeed] = useState(0);
  const [robustness, setRobustness] = useState(false);
  // Its cells are plain evaluations paired with the unperturbed one (the engine refuses a memory per task).
  const robustnessAllowed = rehearsals === 0 && memorySource !== 'stored';
  const [watch, setWatch] = useState<JobWatch | null>(null);
  const [error, setError] = useState<unknown>(null);
  const job = useJobWatch(watch);
  const limitNumber = limit.trim() === '' ? undefined : Number(limit);
  const limitOk = limitNumber === undefined || (Number.isInteger(limitNumber) && limitNumber >= 1 && limitNumber <= 10_000);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!run || !limitOk || watch) return;
    setWatch({ kind: 'evaluate', runId: run.id, since: Date.now() });
    setError(null);
    try {
      await api.call('evals.run', {
        runId: run.id,
        ...(step === '' ? {} : { step: Number(step) }),
        split,
        ...(limitNumber === undefined ? {} : { limit: limitNumber }),
        rehearsals,
        mode,
        commit,
        memories: memorySource,
        seed,
        ...(robustness && robustnessAllowed ? { robustness: true } : {}),
      });
      results.reload();
    } catch (e) {
      setError(e);
    } finally {
      setWatch(null);
    }
  };

  return (
    <>
      <PageHeader title="Evaluate" subtitle="Success in the real environment on tasks training never saw, with and without test-time rehearsal" />
      {runs.error ? <ErrorNotice error={runs.error} onRetry={runs.reload} /> : null}
      {!runs.data && !runs.error && <Loading what="runs" />}
      {runs.data && candidates.length === 0 && (
        <EmptyState title="No trained run to evaluate" testId="evaluate-no-runs">
          <p>Evaluation runs a run's checkpoint in the real environment. Train a run until it writes a checkpoint, then evaluate it here.</p>
        </EmptyState>
      )}
      {run && (
        <form className="card eval-form" onSubmit={submit} data-testid="eval-form">
          <div className="filters">
            <RunSelect runs={candidates} value={run.id} onChange={(id) => (setRunId(id), setStep(''))} testId="eval-run" />
            <CheckpointSelect run={run} value={step} onChange={setStep} />
            <label className="field-inline">
              <span>Split</span>
              <select value={split} onChange={(e) => ((choiceTouched.current = true), setSplit(e.target.value as Split))} data-testid="eval-split">
                <option value="heldout">held-out</option>
                <option value="ood">out-of-distribution</option>
                <option value="train">train</option>
              </select>
            </label>
            <label className="field-inline">
              <span>Tasks (max)</span>
              <input
                type="text"
                inputMode="numeric"
                value={limit}
                onChange={(e) => ((choiceTouched.current = true), setLimit(e.target.value))}
                placeholder="all"
                aria-invalid={limitOk ? undefined : true}
                data-testid="eval-limit"
              />
            </label>
          </div>
          <div className="filters">
            <label className="field-inline">
              <span>Test-time rehearsals</span>
              <input
                type="number"
                min={0}
                max={16}
                value={rehearsals}
                onChange={(e) => setRehearsals(Math.min(16, Math.max(0, Math.round(Number(e.target.value) || 0))))}
                data-testid="eval-rehearsals"
              />
            </label>
            <StoredMemories runId={run.id} value={memorySource} onChange={setMemorySource} />
            {(rehearsals > 0 || memorySource === 'stored') && (
              <label className="field-inline">
                <span>Commit</span>
                <select value={commit} onChange={(e) => setCommit(e.target.value as 'prompt' | 'plan' | 'safe')} data-testid="eval-commit">
                  <option value="safe">safe (memory only vetoes failing calls)</option>
                  <option value="prompt">memory in the prompt</option>
                  <option value="plan">follow the plan</option>
                </select>
              </label>
            )}
            {rehearsals > 0 && (
              <>
                <label className="field-inline">
                  <span>Mode</span>
                  <select value={mode} onChange={(e) => setMode(e.target.value as 'parallel' | 'sequential')}>
                    <option value="parallel">parallel</option>
                    <option value="sequential">sequential</option>
                  </select>
                </label>
              </>
            )}
            <label className="field-inline">
              <span>Seed</span>
              <input
                type="number"
                min={0}
                max={SEED_MAX}
                value={seed}
                onChange={(e) => setSeed(Math.min(SEED_MAX, Math.max(0, Math.round(Number(e.target.value) || 0))))}
              />
            </label>
            <label
              className="field-inline"
              title="the same tasks again with 1, 4, 16 and 64 filler tokens after the system text, after the instruction and in a memory block, and with a rehearsal memory; passes when none costs more than 5 points"
            >
              <input
                type="checkbox"
                checked={robustness && robustnessAllowed}
                disabled={!robustnessAllowed}
                onChange={(e) => setRobustness(e.target.checked)}
                data-testid="eval-robustness-toggle"
              />
              <span>robustness{robustnessAllowed ? '' : ' (without rehearsals)'}</span>
            </label>
            <button type="submit" className="button button-primary" disabled={!limitOk || watch !== null} data-testid="eval-submit">
              Evaluate
            </button>
          </div>
          {!limitOk && (
            <p className="knob-issue" role="alert">
              Tasks (max) is a whole number from 1 to 10,000, or empty for every task of the split.
            </p>
          )}
          {watch && <JobProgress job={job} since={watch.since} what={`evaluating ${run.name} on ${split}`} />}
          {error ? <ErrorNotice error={error} /> : null}
        </form>
      )}
      <section className="stack" aria-labelledby="eval-results">
        <h2 id="eval-results">Results</h2>
        {results.error ? <ErrorNotice error={results.error} onRetry={results.reload} /> : null}
        {results.data && results.data.items.length === 0 && (
          <p className="muted" data-testid="eval-none">
            No evaluations run from here yet.
            {run && run.config.evalEvery > 0 && (
              <>
                {' '}
                {run.name} also evaluates itself on held-out tasks every {run.config.evalEvery} steps while it trains: those figures are on its{' '}
                <a href={routeHref('dashboard', { run: run.id })}>Dashboard</a> (held-out success and the result card).
              </>
            )}
          </p>
        )}
        {results.data && run && results.data.items.some((e) => e.runId === run.id) && (
          <SuccessByStep items={results.data.items} runId={run.id} runName={run.name} />
        )}
        {results.data?.items
          .filter((e) => e.robustness)
          .slice(0, 3)
          .map((e) => (
            <RobustnessTable
              key={e.id}
              table={e.robustness!}
              title={`${(runs.data?.items ?? []).find((r) => r.id === e.runId)?.name ?? e.runId} · step ${e.step} · ${e.tasks} tasks`}
            />
          ))}
        {results.data && results.data.items.length > 0 && (
          <ResultsTable items={results.data.items} runNames={new Map((runs.data?.items ?? []).map((r) => [r.id, r.name]))} />
        )}
      </section>
    </>
  );
}

/**
 * Runs a suite over the typed contract, exactly as the CLI would: trains each planned run, evaluates
 * its checkpoints on held-out tasks in the real environment, and reads training figures and curves
 * back from the store. Nothing here touches the engine's internals.
 */
import { ContractError, type MetricSeries, type WorkbenchApi } from '../../contract';
import { type RunPlan, type Variant, planRuns, warmStarted } from './plan';
import { type Method, type Suite, checkSuite } from './suite';

export interface Measurement {
  env: string;
  seed: number;
  variant: Variant;
  runId: string;
  /** The checkpoint evaluated. */
  step: number;
  warmStart: boolean;
  success: number;
  meanScore: number;
  invalidActionRate: number;
  envCallsPerTask: number;
  tokensPerTask: number;
  evalWallMs: number;
  /** World-model fidelity of the test-time rehearsals (null without rehearsals). */
  fidelity: number | null;
  /** Env calls spent gathering demonstrations for this run (the `gather_env_calls` metric; 0 for a warm start, which reuses another run's). */
  gatherEnvCalls: number;
  /** Env calls during the compared RL budget (sum of the `env_calls` metric over its steps). */
  trainEnvCalls: number;
  /** Env calls over every training step up to the evaluated checkpoint. */
  trainEnvCallsTotal: number;
  /** Training wall time up to the evaluated checkpoint (sum of `step_ms`). */
  trainWallMs: number;
}

/** A per-run curve, x = step within the compared RL budget (1 … rlSteps). */
export interface Curve {
  env: string;
  seed: number;
  method: Method;
  kind: 'reward' | 'fidelity';
  /** Where the values come from: a metric key, or `reality-check` (replayed rehearsals). */
  source: string;
  steps: number[];
  values: number[];
}

export interface RunFailure {
  env: string;
  seed: number;
  methods: Method[];
  runId: string | null;
  error: string;
}

export interface ExperimentResult {
  suite: Suite;
  startedAt: number;
  wallMs: number;
  measurements: Measurement[];
  curves: Curve[];
  failures: RunFailure[];
}

export interface ExperimentProgress {
  /** 1-based index of the current run and the number of runs. */
  run: number;
  runs: number;
  env: string;
  seed: number;
  label: string;
  step: number;
  totalSteps: number;
  /** Whole-experiment fraction done, by training steps (evaluations are not counted). */
  fraction: number;
  /** Whole-experiment estimate from the training steps done so far; null before the first. */
  etaMs: number | null;
}

export interface RunnerHooks {
  onProgress?: (p: ExperimentProgress) => void;
  onLog?: (line: string) => void;
  /** Aborting cancels the run in progress and stops the experiment. */
  signal?: AbortSignal;
}

export class ExperimentCancelled extends Error {
  override name = 'ExperimentCancelled';
  constructor(readonly partial: ExperimentResult) {
    super('experiment cancelled');
  }
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const SERIES_KEYS = ['env_calls', 'gather_env_calls', 'step_ms', 'reward', 'rwml/similarity'];

/** Waits for runs to end; statuses are recorded from the moment it exists, so no end is missed. */
function runWatcher(api: WorkbenchApi) {
  const ended = new Map<string, string>();
  const waiters = new Map<string, (status: string) => void>();
  const off = api.on('run.status', (s) => {
    if (!TERMINAL.has(s.status)) return;
    ended.set(s.runId, s.status);
    waiters.get(s.runId)?.(s.status);
  });
  return {
    wait: (runId: string) => new Promise<string>((resolve) => (ended.has(runId) ? resolve(ended.get(runId)!) : waiters.set(runId, resolve))),
    close: off,
  };
}

const sumWhere = (series: MetricSeries | undefined, keep: (step: number) => boolean) =>
  series ? series.values.reduce((acc, v, i) => (keep(series.steps[i]) ? acc + v : acc), 0) : 0;

export async function runExperiment(api: WorkbenchApi, suite: Suite, hooks: RunnerHooks = {}): Promise<ExperimentResult> {
  checkSuite(suite);
  const log = hooks.onLog ?? (() => {});
  const plans = suite.envs.flatMap((env) => suite.seeds.flatMap((seed) => planRuns(suite, env, seed)));
  const result: ExperimentResult = { suite, startedAt: Date.now(), wallMs: 0, measurements: [], curves: [], failures: [] };
  const watcher = runWatcher(api);
  let plannedTotal = plans.reduce((s, p) => s + p.plannedSteps, 0);
  let stepsDone = 0;
  let current: { index: number; plan: RunPlan; runId: string } | null = null;
  const offProgress = api.on('run.progress', (p) => {
    if (!current || p.runId !== current.runId) return;
    const done = stepsDone + p.step;
    const elapsed = Date.now() - result.startedAt;
    hooks.onProgress?.({
      run: current.index + 1,
      runs: plans.length,
      env: current.plan.env,
      seed: current.plan.seed,
      label: String(current.plan.config.algo),
      step: p.step,
      totalSteps: p.totalSteps,
      fraction: Math.min(1, done / plannedTotal),
      etaMs: done > 0 ? (elapsed / done) * Math.max(0, plannedTotal - done) : null,
    });
  });
  const cancelled = () => hooks.signal?.aborted === true;
  try {
    for (const [index, plan] of plans.entries()) {
      if (cancelled()) throw new ExperimentCancelled(result);
      log(`[${index + 1}/${plans.length}] ${plan.env} seed ${plan.seed}: ${plan.config.algo}`);
      const run = await api.call('runs.create', { config: plan.config, start: true });
      // The run's real length (an engine without the warm start trains fewer steps) keeps the ETA honest.
      plannedTotal += run.totalSteps - plan.plannedSteps;
      current = { index, plan, runId: run.id };
      const onAbort = () => void api.call('runs.cancel', { id: run.id }).catch(() => {});
      hooks.signal?.addEventListener('abort', onAbort, { once: true });
      const status = await watcher.wait(run.id).finally(() => hooks.signal?.removeEventListener('abort', onAbort));
      current = null;
      const final = await api.call('runs.get', { id: run.id });
      stepsDone += run.totalSteps;
      if (status === 'cancelled' && cancelled()) throw new ExperimentCancelled(result);
      if (status !== 'completed') {
        result.failures.push({ env: plan.env, seed: plan.seed, methods: plan.methods, runId: run.id, error: final.error ?? `run ${status}` });
        log(`  ${status}: ${final.error ?? ''}`);
        continue;
      }
      try {
        await collect(api, suite, plan, final.id, final.totalSteps, result, log, cancelled);
      } catch (error) {
        if (error instanceof ExperimentCancelled) throw error;
        // An evaluation the engine refuses loses this run's remaining rows, not the experiment.
        const message = error instanceof Error ? error.message : String(error);
        result.failures.push({ env: plan.env, seed: plan.seed, methods: plan.methods, runId: run.id, error: `evaluating: ${message}` });
        log(`  evaluation failed: ${message}`);
      }
    }
  } finally {
    offProgress();
    watcher.close();
    result.wallMs = Date.now() - result.startedAt;
  }
  return result;
}

/** Evaluations, training figures and curves of one finished run. */
async function collect(
  api: WorkbenchApi,
  suite: Suite,
  plan: RunPlan,
  runId: string,
  totalSteps: number,
  result: ExperimentResult,
  log: (line: string) => void,
  cancelled: () => boolean,
): Promise<void> {
  const warm = warmStarted(plan, totalSteps);
  if (!warm) log(`  note: the engine trained ${plan.config.algo} without its SFT warm start (${totalSteps} steps, not ${plan.plannedSteps})`);
  const rlFirst = totalSteps - plan.rlSteps + 1;
  const { series } = await api.call('metrics.query', { runId, keys: SERIES_KEYS, maxPoints: 100_000 });
  const byKey = new Map(series.map((s) => [s.key, s]));
  for (const e of plan.evals) {
    if (cancelled()) throw new ExperimentCancelled(result);
    const step = e.at === 'sft' ? plan.sftSteps : totalSteps;
    const tt = e.variant.testTime;
    const ev = await api.call('evals.run', {
      runId,
      step,
      split: 'heldout',
      limit: plan.evalLimit,
      rehearsals: tt?.rehearsals ?? 0,
      mode: tt?.mode ?? 'parallel',
      seed: plan.seed,
    });
    const inBudget = e.at === 'sft' ? (s: number) => s <= step : (s: number) => s >= rlFirst && s <= step;
    result.measurements.push({
      env: plan.env,
      seed: plan.seed,
      variant: e.variant,
      runId,
      step,
      warmStart: warm,
      success: ev.success,
      meanScore: ev.meanScore,
      invalidActionRate: ev.invalidActionRate,
      envCallsPerTask: ev.envCallsPerTask,
      tokensPerTask: ev.tokensPerTask,
      evalWallMs: ev.wallMs,
      fidelity: ev.fidelity,
      gatherEnvCalls: sumWhere(byKey.get('gather_env_calls'), (s) => s <= step),
      trainEnvCalls: sumWhere(byKey.get('env_calls'), inBudget),
      trainEnvCallsTotal: sumWhere(byKey.get('env_calls'), (s) => s <= step),
      trainWallMs: sumWhere(byKey.get('step_ms'), (s) => s <= step),
    });
    log(
      `  eval ${e.variant.method}${tt ? ` + ${tt.rehearsals} ${tt.mode} rehearsals` : ''} @ step ${step}: success ${ev.success.toFixed(3)}, score ${ev.meanScore.toFixed(3)}`,
    );
  }
  const method = plan.methods[0];
  const rlCurve = (s: MetricSeries | undefined, kind: Curve['kind']) => {
    if (!s) return;
    const idx = s.steps.map((step, i) => [step, i] as const).filter(([step]) => step >= rlFirst);
    if (idx.length)
      result.curves.push({
        env: plan.env,
        seed: plan.seed,
        method,
        kind,
        source: s.key,
        steps: idx.map(([step]) => step - rlFirst + 1),
        values: idx.map(([, i]) => s.values[i]),
      });
  };
  if (plan.rlSteps > 0) {
    rlCurve(byKey.get('reward'), 'reward');
    rlCurve(byKey.get('rwml/similarity'), 'fidelity');
  }
  if (plan.realityCheck) {
    const curve = await realityCheckCurve(api, suite, runId, rlFirst, totalSteps, cancelled, result);
    if (curve.steps.length) result.curves.push({ env: plan.env, seed: plan.seed, method, kind: 'fidelity', source: 'reality-check', ...curve });
  }
}

/**
 * World-model fidelity during training: replay a few rehearsed rollouts of sampled steps in the real
 * env (`trajectories.realityCheck`) and take their mean observation similarity. These replays are
 * measurement, not training, and are not counted as training env calls.
 */
async function realityCheckCurve(
  api: WorkbenchApi,
  suite: Suite,
  runId: string,
  first: number,
  last: number,
  cancelled: () => boolean,
  result: ExperimentResult,
): Promise<{ steps: number[]; values: number[] }> {
  const steps: number[] = [];
  const values: number[] = [];
  for (let step = first; step <= last; step += suite.fidelityEvery) {
    if (cancelled()) throw new ExperimentCancelled(result);
    const { items } = await api.call('trajectories.list', { runId, step, mode: 'rehearse', limit: suite.fidelitySamples * 4 });
    const sims: number[] = [];
    for (const item of items) {
      if (sims.length >= suite.fidelitySamples) break;
      try {
        const { summary } = await api.call('trajectories.realityCheck', { id: item.id });
        if (summary.compared > 0) sims.push(summary.meanSimilarity);
      } catch (error) {
        // A rollout that ended on a malformed action has no rehearsed observation to check.
        if (!(error instanceof ContractError && error.code === 'conflict')) throw error;
      }
    }
    if (sims.length) {
      steps.push(step - first + 1);
      values.push(sims.reduce((a, b) => a + b, 0) / sims.length);
    }
  }
  return { steps, values };
}

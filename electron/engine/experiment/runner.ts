/**
 * Runs a suite over the typed contract, exactly as the CLI would. Per env and seed: train the SFT
 * run, then each method from its checkpoint (`initFrom`); after each run, read its training figures,
 * then evaluate it in the real environment on held-out and training tasks. Every finished cell goes
 * to `onCell` (the CLI appends it to cells.jsonl) and cells already in `done` are skipped, so a
 * resumed experiment trains and evaluates only what is missing. Nothing here touches the engine's internals.
 */
import type { WorkbenchApi } from '../../contract';
import { type Cell, type EvalCell, EVAL_FIGURES, type RunCell } from './cells';
import { trainingFigures } from './figures';
import { type RunPlan, type SeedPlan, planSuite, withInit } from './plan';
import { type Method, type Suite, checkSuite } from './suite';

export interface RunFailure {
  env: string;
  seed: number;
  method: Method;
  runId: string | null;
  error: string;
}

export interface ExperimentResult {
  suite: Suite;
  startedAt: number;
  /** This session's wall time (a resumed experiment's earlier sessions are not counted). */
  wallMs: number;
  /** Every finished cell: the ones found in `done`, then this session's. */
  cells: Cell[];
  failures: RunFailure[];
}

export interface ExperimentProgress {
  /** 1-based index of the current run among those this session trains, and their number. */
  run: number;
  runs: number;
  env: string;
  seed: number;
  label: string;
  step: number;
  totalSteps: number;
  /** This session's fraction done, by training steps (evaluations are not counted). */
  fraction: number;
  /** Estimate from the training steps done so far; null before the first. */
  etaMs: number | null;
}

export interface RunnerHooks {
  onProgress?: (p: ExperimentProgress) => void;
  onLog?: (line: string) => void;
  /** Called with each cell as it finishes, before the next piece of work starts. */
  onCell?: (cell: Cell) => void;
  /** Cells finished earlier (a resumed experiment): their work is not done again. */
  done?: readonly Cell[];
  /** Aborting cancels the run in progress and stops the experiment. */
  signal?: AbortSignal;
  /**
   * Where the run training each cell is noted (the experiment's folder): a session killed mid-run
   * leaves it interrupted, and the next one resumes that run instead of leaving it behind and training
   * the cell again under a new id. A note for a cell that was stored since is never read again.
   */
  inFlight?: { get(key: string): string | undefined; set(key: string, runId: string): void };
}

export class ExperimentCancelled extends Error {
  override name = 'ExperimentCancelled';
  constructor(readonly partial: ExperimentResult) {
    super('experiment cancelled');
  }
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

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

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function runExperiment(api: WorkbenchApi, suite: Suite, hooks: RunnerHooks = {}): Promise<ExperimentResult> {
  checkSuite(suite);
  const log = hooks.onLog ?? (() => {});
  const seeds = planSuite(suite);
  const done = new Map((hooks.done ?? []).map((c) => [c.key, c]));
  const result: ExperimentResult = { suite, startedAt: Date.now(), wallMs: 0, cells: [...done.values()], failures: [] };
  const toTrain = seeds.flatMap((s) => [s.sft, ...s.methods]).filter((p) => !done.has(p.key));
  const plannedTotal = toTrain.reduce((n, p) => n + p.steps, 0);
  const watcher = runWatcher(api);
  let stepsDone = 0;
  let current: { plan: RunPlan; runId: string } | null = null;
  const offProgress = api.on('run.progress', (p) => {
    if (!current || p.runId !== current.runId) return;
    const doneSteps = stepsDone + p.step;
    const elapsed = Date.now() - result.startedAt;
    hooks.onProgress?.({
      run: toTrain.indexOf(current.plan) + 1,
      runs: toTrain.length,
      env: current.plan.env,
      seed: current.plan.seed,
      label: current.plan.method,
      step: p.step,
      totalSteps: p.totalSteps,
      fraction: Math.min(1, doneSteps / Math.max(1, plannedTotal)),
      etaMs: doneSteps > 0 ? (elapsed / doneSteps) * Math.max(0, plannedTotal - doneSteps) : null,
    });
  });
  const cancelled = () => hooks.signal?.aborted === true;
  const finish = (cell: Cell) => {
    result.cells.push(cell);
    done.set(cell.key, cell);
    hooks.onCell?.(cell);
  };
  const fail = (plan: RunPlan, runId: string | null, error: string) => {
    result.failures.push({ env: plan.env, seed: plan.seed, method: plan.method, runId, error });
    log(`  ${plan.method}: ${error}`);
  };

  /** The run an earlier session left training this cell: resumed when interrupted, taken as it is when it completed. */
  const goOnWith = async (runId: string | undefined) => {
    if (!runId) return null;
    try {
      const earlier = await api.call('runs.get', { id: runId });
      if (earlier.status === 'completed') return earlier;
      if (earlier.status !== 'interrupted' && earlier.status !== 'cancelled') return null;
      log(`  resuming run ${runId}, ${earlier.status} at step ${earlier.currentStep}`);
      return await api.call('runs.resume', { id: runId });
    } catch {
      return null; // deleted since: train the cell anew
    }
  };

  /** Trains a run unless its cell is stored; returns its cell, or null when it failed. */
  const train = async (plan: RunPlan, config: RunPlan['config']): Promise<RunCell | null> => {
    const stored = done.get(plan.key);
    if (stored?.kind === 'run') return stored;
    if (cancelled()) throw new ExperimentCancelled(result);
    log(`[${toTrain.indexOf(plan) + 1}/${toTrain.length}] ${plan.env} seed ${plan.seed}: ${plan.method}`);
    let run = await goOnWith(hooks.inFlight?.get(plan.key));
    if (!run) {
      try {
        run = await api.call('runs.create', { config, start: true });
      } catch (error) {
        fail(plan, null, `not created: ${message(error)}`);
        return null;
      }
    }
    hooks.inFlight?.set(plan.key, run.id);
    current = { plan, runId: run.id };
    const onAbort = () => void api.call('runs.cancel', { id: run.id }).catch(() => {});
    hooks.signal?.addEventListener('abort', onAbort, { once: true });
    const status =
      run.status === 'completed' ? run.status : await watcher.wait(run.id).finally(() => hooks.signal?.removeEventListener('abort', onAbort));
    current = null;
    stepsDone += plan.steps;
    const final = await api.call('runs.get', { id: run.id });
    if (status === 'cancelled' && cancelled()) throw new ExperimentCancelled(result);
    if (status !== 'completed') {
      fail(plan, run.id, final.error ?? `run ${status}`);
      return null;
    }
    try {
      const figures = await trainingFigures(api, suite, plan, run.id, final.totalSteps);
      const cell: RunCell = {
        kind: 'run',
        key: plan.key,
        env: plan.env,
        seed: plan.seed,
        method: plan.method,
        runId: run.id,
        step: final.totalSteps,
        ...figures,
      };
      finish(cell);
      return cell;
    } catch (error) {
      fail(plan, run.id, `reading its training figures: ${message(error)}`);
      return null;
    }
  };

  /** The plan's evaluations not stored yet, one cell each; a refused one is a failure, the rest go on. */
  const evaluate = async (plan: RunPlan, run: RunCell) => {
    for (const e of plan.evals) {
      if (done.has(e.key)) continue;
      if (cancelled()) throw new ExperimentCancelled(result);
      const tt = e.variant.testTime;
      try {
        const ev = await api.call('evals.run', {
          runId: run.runId,
          step: run.step,
          split: e.split,
          limit: plan.evalLimit,
          rehearsals: tt?.rehearsals ?? 0,
          mode: tt?.mode ?? 'parallel',
          seed: plan.seed,
          ...(e.robustness ? { robustness: e.robustness } : {}),
        });
        const figures = Object.fromEntries(EVAL_FIGURES.map((k) => [k, ev[k]])) as Pick<EvalCell, (typeof EVAL_FIGURES)[number]>;
        const cell: EvalCell = {
          kind: 'eval',
          key: e.key,
          env: plan.env,
          seed: plan.seed,
          variant: e.variant,
          split: e.split,
          runId: run.runId,
          step: run.step,
          ...figures,
          ...(ev.robustness ? { robustnessWorstDrop: ev.robustness.worstDrop } : {}),
        };
        finish(cell);
        log(`  eval ${e.key}: success ${ev.success.toFixed(3)}, score ${ev.meanScore.toFixed(3)}`);
      } catch (error) {
        fail(plan, run.runId, `evaluating ${e.key}: ${message(error)}`);
      }
    }
  };

  const runSeed = async (s: SeedPlan) => {
    const sft = await train(s.sft, s.sft.config);
    if (!sft) {
      for (const m of s.methods) if (!done.has(m.key)) fail(m, null, 'not trained: its seed’s SFT run did not finish');
      return;
    }
    await evaluate(s.sft, sft);
    for (const plan of s.methods) {
      const run = await train(plan, withInit(plan, sft.runId, sft.step));
      if (run) await evaluate(plan, run);
    }
  };

  try {
    for (const s of seeds) await runSeed(s);
  } finally {
    offProgress();
    watcher.close();
    result.wallMs = Date.now() - result.startedAt;
  }
  return result;
}

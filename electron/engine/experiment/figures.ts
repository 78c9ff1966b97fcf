/**
 * A finished run's training figures, read back over the contract from what the loops logged and the
 * rollouts they stored: env calls (gathering apart from training), groups with signal, the wall
 * time of an RL step split into generation, environment and training, per-role reward curves,
 * reality-check fidelity at the first and last RL step, and how often observations say "Error" when
 * imagined against when real. Read before the run is evaluated: evaluation rollouts are stored under
 * the run's last step too and would mix in.
 */
import { ContractError, type MetricSeries, type Rollout, type RolloutSummary, type WorkbenchApi } from '../../contract';
import type { Count, CurveData, RunCell, StepTiming } from './cells';
import type { RunPlan } from './plan';
import type { Suite } from './suite';
import { isErrorObservation } from '../envs/error-observation';

export type TrainingFigures = Omit<RunCell, 'kind' | 'key' | 'env' | 'seed' | 'method' | 'runId' | 'step'>;

/** A run's figures before anything is read: no env calls, no time, nothing measured. */
export const NO_TRAINING_FIGURES: Readonly<TrainingFigures> = {
  gatherEnvCalls: 0,
  trainEnvCalls: 0,
  trainWallMs: 0,
  groupsWithSignal: null,
  timing: null,
  curves: [],
  fidelityStart: null,
  fidelityEnd: null,
  imaginedErrors: null,
  realErrors: null,
  checkedErrors: null,
};

const CURVE_KEYS = ['reward', 'reward/act', 'reward/rehearse', 'groups_with_signal', 'rwml/similarity'];
const KEYS = ['env_calls', 'gather_env_calls', 'step_ms', 'tokens_generated', 'tokens_per_s', ...CURVE_KEYS];

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const sum = (s: MetricSeries | undefined) => (s ? s.values.reduce((a, b) => a + b, 0) : 0);

/** Observations of `role` in `turns` and how many start with "Error". */
export function countErrors(turns: ReadonlyArray<{ role: string; text: string }>, role: 'rehearse' | 'env'): Count {
  const obs = turns.filter((t) => t.role === role);
  return { errors: obs.filter((t) => isErrorObservation(t.text)).length, total: obs.length };
}

const add = (a: Count, b: Count): Count => ({ errors: a.errors + b.errors, total: a.total + b.total });

/**
 * Mean per RL step. The loops log `step_ms` (the whole step) and `tokens_per_s` over their rollout
 * phase, so the rollout phase is tokens_generated / tokens_per_s; the environment's share is what
 * the stored rollouts timed (`envWallMs`), generation the rest; training is the step minus the
 * rollout phase. Rollouts redrawn by dynamic sampling are not stored, so their env time is not counted.
 */
export function stepTiming(byKey: Map<string, MetricSeries>, envMsByStep: Map<number, number>): StepTiming | null {
  const stepMs = byKey.get('step_ms');
  if (!stepMs?.steps.length) return null;
  const tokens = byKey.get('tokens_generated');
  const rate = byKey.get('tokens_per_s');
  const at = (s: MetricSeries | undefined, step: number) => {
    const i = s ? s.steps.indexOf(step) : -1;
    return i < 0 ? null : s!.values[i];
  };
  const rows = stepMs.steps.map((step, i) => {
    const n = at(tokens, step);
    const r = at(rate, step);
    const rolloutMs = n !== null && r !== null && r > 0 ? (n / r) * 1000 : null;
    const envMs = rolloutMs === null ? null : (envMsByStep.get(step) ?? 0);
    return {
      stepMs: stepMs.values[i],
      rolloutMs,
      envMs,
      generationMs: rolloutMs === null || envMs === null ? null : Math.max(0, rolloutMs - envMs),
      trainMs: rolloutMs === null ? null : Math.max(0, stepMs.values[i] - rolloutMs),
    };
  });
  const col = (f: (r: (typeof rows)[number]) => number | null) => {
    const xs = rows.map(f);
    return xs.some((x) => x === null) ? null : mean(xs as number[]);
  };
  return {
    steps: rows.length,
    stepMs: col((r) => r.stepMs),
    rolloutMs: col((r) => r.rolloutMs),
    envMs: col((r) => r.envMs),
    generationMs: col((r) => r.generationMs),
    trainMs: col((r) => r.trainMs),
  };
}

async function listRollouts(api: WorkbenchApi, input: { runId: string; step?: number; mode?: 'rehearse' }, max = Infinity): Promise<RolloutSummary[]> {
  const out: RolloutSummary[] = [];
  for (let offset = 0; out.length < max; offset += 1000) {
    const { items, total } = await api.call('trajectories.list', { ...input, limit: 1000, offset });
    out.push(...items);
    if (!items.length || offset + items.length >= total) break;
  }
  return out;
}

/** `count` items spread evenly over `xs` (all of them when there are fewer). */
export function spread<T>(xs: readonly T[], count: number): T[] {
  if (xs.length <= count) return [...xs];
  return Array.from({ length: count }, (_, i) => xs[Math.floor((i * xs.length) / count)]);
}

/** The RL steps reality-checked: the first, every `every` after it, and the last. */
export function checkedSteps(last: number, every: number): number[] {
  const steps = new Set([1, last]);
  if (every > 0) for (let s = 1 + every; s < last; s += every) steps.add(s);
  return [...steps].sort((a, b) => a - b);
}

export async function trainingFigures(api: WorkbenchApi, suite: Suite, plan: RunPlan, runId: string, last: number): Promise<TrainingFigures> {
  const { series } = await api.call('metrics.query', { runId, keys: KEYS, maxPoints: 100_000 });
  const byKey = new Map(series.filter((s) => s.steps.length).map((s) => [s.key, s]));
  const figures: TrainingFigures = {
    ...NO_TRAINING_FIGURES,
    curves: [], // its own array: the curves below are pushed onto it
    gatherEnvCalls: sum(byKey.get('gather_env_calls')),
    trainEnvCalls: sum(byKey.get('env_calls')),
    trainWallMs: sum(byKey.get('step_ms')),
    groupsWithSignal: byKey.has('groups_with_signal') ? mean(byKey.get('groups_with_signal')!.values) : null,
  };
  if (plan.method === 'sft') return figures;
  for (const key of CURVE_KEYS) {
    const s = byKey.get(key);
    if (s) figures.curves.push({ source: key, steps: [...s.steps], values: [...s.values] });
  }
  const rollouts = (await listRollouts(api, { runId })).filter((r) => r.step !== null && r.step <= last);
  const envMs = new Map<number, number>();
  for (const r of rollouts) envMs.set(r.step!, (envMs.get(r.step!) ?? 0) + r.envWallMs);
  figures.timing = stepTiming(byKey, envMs);
  if (suite.errorRollouts > 0) {
    let imagined: Count = { errors: 0, total: 0 };
    let real: Count = { errors: 0, total: 0 };
    for (const r of spread(rollouts, suite.errorRollouts)) {
      const { turns } = await api.call('trajectories.get', { id: r.id });
      imagined = add(imagined, countErrors(turns, 'rehearse'));
      real = add(real, countErrors(turns, 'env'));
    }
    figures.imaginedErrors = imagined.total ? imagined : null;
    figures.realErrors = real.total ? real : null;
  }
  if (plan.realityCheck) Object.assign(figures, await realityChecks(api, suite, runId, last, figures.curves));
  return figures;
}

/**
 * Replays a few rehearsed rollouts of the checked steps in the real environment
 * (`trajectories.realityCheck`): their mean observation similarity (the fidelity curve, its first and
 * last point), and on the same actions how often the imagined and the real observation said "Error".
 * These replays measure; they are not training env calls.
 */
async function realityChecks(
  api: WorkbenchApi,
  suite: Suite,
  runId: string,
  last: number,
  curves: CurveData[],
): Promise<Pick<TrainingFigures, 'fidelityStart' | 'fidelityEnd' | 'checkedErrors'>> {
  const curve: CurveData = { source: 'reality-check', steps: [], values: [] };
  let imagined: Count = { errors: 0, total: 0 };
  let real: Count = { errors: 0, total: 0 };
  for (const step of checkedSteps(last, suite.fidelityEvery)) {
    const items = await listRollouts(api, { runId, step, mode: 'rehearse' }, suite.fidelitySamples * 4);
    const sims: number[] = [];
    for (const item of items) {
      if (sims.length >= suite.fidelitySamples) break;
      let checked: { rollout: Rollout; summary: { compared: number; meanSimilarity: number } };
      try {
        checked = await api.call('trajectories.realityCheck', { id: item.id });
      } catch (error) {
        // A rollout that ended on a malformed action has no rehearsed observation to check.
        if (error instanceof ContractError && error.code === 'conflict') continue;
        throw error;
      }
      if (checked.summary.compared === 0) continue;
      sims.push(checked.summary.meanSimilarity);
      const pairs = checked.rollout.turns.filter((t) => t.role === 'rehearse' && t.realText !== null);
      imagined = add(imagined, { errors: pairs.filter((t) => isErrorObservation(t.text)).length, total: pairs.length });
      real = add(real, { errors: pairs.filter((t) => isErrorObservation(t.realText!)).length, total: pairs.length });
    }
    if (sims.length) {
      curve.steps.push(step);
      curve.values.push(mean(sims)!);
    }
  }
  if (curve.steps.length) curves.push(curve);
  const at = (step: number) => {
    const i = curve.steps.indexOf(step);
    return i < 0 ? null : curve.values[i];
  };
  return { fidelityStart: at(1), fidelityEnd: at(last), checkedErrors: imagined.total ? { imagined, real } : null };
}

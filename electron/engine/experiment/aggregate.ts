/**
 * From cells to table rows and mean curves. Spread is the sample standard deviation over seeds
 * (n − 1 in the denominator); with one seed there is no spread (null), never a fake 0. A method's
 * Δ is paired: per seed, its figure minus the same seed's SFT checkpoint's, then mean ± sd of those
 * differences, with the sign each seed gave.
 */
import type { Cell, Count, EvalCell, RunCell, StepTiming } from './cells';
import { type Split, type Variant, sftTestTimeVariant, testTimeVariants, variantKey } from './plan';
import { METHODS, METHOD_LABELS, type Method, type Suite } from './suite';

export interface Stat {
  mean: number;
  /** Sample standard deviation over seeds; null with fewer than two. */
  std: number | null;
  n: number;
}

export interface Delta extends Stat {
  /** Per seed in the suite's seed order: '+', '−', '0', or '·' where either side is missing. */
  signs: string[];
}

export function meanStd(values: readonly number[]): Stat | null {
  const xs = values.filter((v) => Number.isFinite(v));
  if (!xs.length) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return { mean, std: null, n: 1 };
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1);
  return { mean, std: Math.sqrt(variance), n: xs.length };
}

/** Paired Δ over `seeds`: value − base per seed where both exist. */
export function pairedDelta(value: ReadonlyMap<number, number>, base: ReadonlyMap<number, number>, seeds: readonly number[]): Delta | null {
  const diffs = seeds.map((s) => (value.has(s) && base.has(s) ? value.get(s)! - base.get(s)! : null));
  const stat = meanStd(diffs.filter((d): d is number => d !== null));
  if (!stat) return null;
  // Differences of rates below a rounding hair are ties, not signs.
  const signs = diffs.map((d) => (d === null ? '·' : Math.abs(d) < 1e-9 ? '0' : d > 0 ? '+' : '−'));
  return { ...stat, signs };
}

export interface SplitFigures {
  success: Stat | null;
  score: Stat | null;
  invalidActionRate: Stat | null;
  /** Paired against the seed's SFT checkpoint; null for the SFT row itself. */
  deltaSuccess: Delta | null;
  deltaScore: Delta | null;
}

export interface TableRow {
  env: string;
  variant: string;
  label: string;
  /** Seeds with a held-out evaluation. */
  n: number;
  heldout: SplitFigures;
  train: SplitFigures;
  testEnvCallsPerTask: Stat | null;
  tokensPerTask: Stat | null;
  evalWallS: Stat | null;
  /** Test-time rehearsal rows: fidelity of the rehearsed observations (evaluation). */
  testTimeFidelity: Stat | null;
  /** With the suite's robustness evaluation: the held-out success's worst drop under a perturbation. */
  robustnessWorstDrop: Stat | null;
  /**
   * From here on, the training figures of the row's own run (null for test-time rows, which reuse
   * envace's run). Env calls gathering demonstrations: the seed's SFT run's plus the run's own.
   */
  gatherEnvCalls: Stat | null;
  trainEnvCalls: Stat | null;
  groupsWithSignal: Stat | null;
  stepS: Stat | null;
  generationS: Stat | null;
  envS: Stat | null;
  trainS: Stat | null;
  fidelityStart: Stat | null;
  fidelityEnd: Stat | null;
  /** Share of observations starting with "Error": imagined (rehearsed) and real, in training rollouts. */
  imaginedErrorRate: Stat | null;
  realErrorRate: Stat | null;
  /** The same, on reality-checked rollouts: imagined vs real for the same actions. */
  checkedImaginedErrorRate: Stat | null;
  checkedRealErrorRate: Stat | null;
}

export function variantLabel(v: Variant): string {
  const base = METHOD_LABELS[v.method];
  return v.testTime ? `${base} + TT ${v.testTime.mode} N=${v.testTime.rehearsals}` : base;
}

/** Table order: SFT only, then the methods as METHODS lists them, then the test-time rows (the SFT checkpoint's first). */
export function variantOrder(suite: Pick<Suite, 'methods' | 'testTime'>): Variant[] {
  const rows: Variant[] = METHODS.filter((m) => m === 'sft' || suite.methods.includes(m)).map((method) => ({ method, testTime: null }));
  const sftTestTime = sftTestTimeVariant(suite);
  return suite.methods.includes('envace') ? [...rows, ...(sftTestTime ? [sftTestTime] : []), ...testTimeVariants(suite)] : rows;
}

const rate = (c: Count | null) => (c && c.total > 0 ? c.errors / c.total : null);
const values = <T>(xs: readonly T[], f: (x: T) => number | null) => xs.map(f).filter((x): x is number => x !== null);

export function aggregate(
  cells: readonly Cell[],
  suite: Pick<Suite, 'seeds' | 'methods' | 'testTime'> & { envs: ReadonlyArray<{ env: string }> },
): TableRow[] {
  const evals = cells.filter((c): c is EvalCell => c.kind === 'eval');
  const runs = cells.filter((c): c is RunCell => c.kind === 'run');
  const rows: TableRow[] = [];
  for (const { env } of suite.envs) {
    const evalsOf = (key: string, split: Split) => evals.filter((c) => c.env === env && c.split === split && variantKey(c.variant) === key);
    const bySeed = (cs: EvalCell[], f: (c: EvalCell) => number) => new Map(cs.map((c) => [c.seed, f(c)]));
    const sftGather = new Map(runs.filter((r) => r.env === env && r.method === 'sft').map((r) => [r.seed, r.gatherEnvCalls]));
    const splitFigures = (key: string, split: Split, isSft: boolean): SplitFigures => {
      const cs = evalsOf(key, split);
      const base = evalsOf('sft', split);
      const delta = (f: (c: EvalCell) => number) => (isSft ? null : pairedDelta(bySeed(cs, f), bySeed(base, f), suite.seeds));
      return {
        success: meanStd(cs.map((c) => c.success)),
        score: meanStd(cs.map((c) => c.meanScore)),
        invalidActionRate: meanStd(cs.map((c) => c.invalidActionRate)),
        deltaSuccess: delta((c) => c.success),
        deltaScore: delta((c) => c.meanScore),
      };
    };
    for (const v of variantOrder(suite)) {
      const key = variantKey(v);
      const held = evalsOf(key, 'heldout');
      const own = v.testTime ? [] : runs.filter((r) => r.env === env && r.method === v.method);
      const run = (f: (r: RunCell) => number | null) => meanStd(values(own, f));
      const seconds = (f: (t: StepTiming) => number | null) =>
        run((r) => {
          const ms = r.timing ? f(r.timing) : null;
          return ms === null ? null : ms / 1000;
        });
      rows.push({
        env,
        variant: key,
        label: variantLabel(v),
        n: held.length,
        heldout: splitFigures(key, 'heldout', key === 'sft'),
        train: splitFigures(key, 'train', key === 'sft'),
        testEnvCallsPerTask: meanStd(held.map((c) => c.envCallsPerTask)),
        tokensPerTask: meanStd(held.map((c) => c.tokensPerTask)),
        evalWallS: meanStd(held.map((c) => c.wallMs / 1000)),
        testTimeFidelity: meanStd(values(held, (c) => c.fidelity)),
        robustnessWorstDrop: meanStd(values(held, (c) => c.robustnessWorstDrop ?? null)),
        gatherEnvCalls: run((r) => r.gatherEnvCalls + (r.method === 'sft' ? 0 : (sftGather.get(r.seed) ?? 0))),
        trainEnvCalls: run((r) => r.trainEnvCalls),
        groupsWithSignal: run((r) => r.groupsWithSignal),
        stepS: seconds((t) => t.stepMs),
        generationS: seconds((t) => t.generationMs),
        envS: seconds((t) => t.envMs),
        trainS: seconds((t) => t.trainMs),
        fidelityStart: run((r) => r.fidelityStart),
        fidelityEnd: run((r) => r.fidelityEnd),
        imaginedErrorRate: run((r) => rate(r.imaginedErrors)),
        realErrorRate: run((r) => rate(r.realErrors)),
        checkedImaginedErrorRate: run((r) => rate(r.checkedErrors?.imagined ?? null)),
        checkedRealErrorRate: run((r) => rate(r.checkedErrors?.real ?? null)),
      });
    }
  }
  return rows;
}

export interface MeanCurve {
  env: string;
  method: Method;
  source: string;
  /** Seeds that contributed. */
  seeds: number;
  steps: number[];
  values: number[];
}

/** Per env, method and source: the mean over seeds at each RL step any seed reported. */
export function meanCurves(cells: readonly Cell[]): MeanCurve[] {
  const groups = new Map<string, Array<{ seed: number; steps: number[]; values: number[] }>>();
  const meta = new Map<string, { env: string; method: Method; source: string }>();
  for (const r of cells) {
    if (r.kind !== 'run') continue;
    for (const c of r.curves) {
      const key = JSON.stringify([r.env, r.method, c.source]);
      meta.set(key, { env: r.env, method: r.method, source: c.source });
      groups.set(key, [...(groups.get(key) ?? []), { seed: r.seed, ...c }]);
    }
  }
  return [...groups.entries()].map(([key, group]) => {
    const atStep = new Map<number, number[]>();
    for (const c of group) c.steps.forEach((s, i) => Number.isFinite(c.values[i]) && atStep.set(s, [...(atStep.get(s) ?? []), c.values[i]]));
    const steps = [...atStep.keys()].sort((a, b) => a - b);
    return { ...meta.get(key)!, seeds: new Set(group.map((c) => c.seed)).size, steps, values: steps.map((s) => meanStd(atStep.get(s)!)!.mean) };
  });
}

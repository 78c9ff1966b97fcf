/**
 * From per-seed measurements to table rows and mean curves. Spread is the sample standard deviation
 * over seeds (n − 1 in the denominator); with one seed there is no spread (null), never a fake 0.
 */
import type { Curve, Measurement } from './runner';
import { type Variant, testTimeVariants, variantKey } from './plan';
import { METHOD_LABELS, type Method, type Suite } from './suite';

export interface Stat {
  mean: number;
  /** Sample standard deviation over seeds; null with fewer than two. */
  std: number | null;
  n: number;
}

export function meanStd(values: readonly number[]): Stat | null {
  const xs = values.filter((v) => Number.isFinite(v));
  if (!xs.length) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return { mean, std: null, n: 1 };
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1);
  return { mean, std: Math.sqrt(variance), n: xs.length };
}

export interface TableRow {
  env: string;
  variant: string;
  label: string;
  /** Seeds measured. */
  n: number;
  /** Whether the runs started from the SFT warm start: all, none, or some of the seeds. */
  warmStart: 'yes' | 'no' | 'mixed';
  success: Stat | null;
  score: Stat | null;
  invalidActionRate: Stat | null;
  /** Env calls spent in the compared RL budget (training). */
  gatherEnvCalls: Stat | null;
  trainEnvCalls: Stat | null;
  testEnvCallsPerTask: Stat | null;
  tokensPerTask: Stat | null;
  fidelity: Stat | null;
  trainWallS: Stat | null;
  evalWallS: Stat | null;
}

export function variantLabel(v: Variant): string {
  const base = METHOD_LABELS[v.method];
  return v.testTime ? `${base} + TT ${v.testTime.mode} N=${v.testTime.rehearsals}` : base;
}

/** Table order: SFT, grpo-real, envace, its test-time variants, PaW, RWML. */
export function variantOrder(suite: Pick<Suite, 'methods' | 'testTime'>): Variant[] {
  const order: Method[] = ['sft', 'grpo-real', 'envace', 'paw', 'rwml'];
  return order
    .filter((m) => suite.methods.includes(m))
    .flatMap((method) => [{ method, testTime: null }, ...(method === 'envace' ? testTimeVariants(suite) : [])]);
}

export function aggregate(measurements: readonly Measurement[], envs: readonly string[], variants: readonly Variant[]): TableRow[] {
  const rows: TableRow[] = [];
  for (const env of envs) {
    for (const v of variants) {
      const key = variantKey(v);
      const ms = measurements.filter((m) => m.env === env && variantKey(m.variant) === key);
      const stat = (f: (m: Measurement) => number | null) => meanStd(ms.map(f).filter((x): x is number => x !== null));
      const warm = ms.filter((m) => m.warmStart).length;
      rows.push({
        env,
        variant: key,
        label: variantLabel(v),
        n: ms.length,
        warmStart: warm === ms.length ? 'yes' : warm === 0 ? 'no' : 'mixed',
        success: stat((m) => m.success),
        score: stat((m) => m.meanScore),
        invalidActionRate: stat((m) => m.invalidActionRate),
        gatherEnvCalls: stat((m) => m.gatherEnvCalls ?? 0),
        trainEnvCalls: stat((m) => m.trainEnvCalls),
        testEnvCallsPerTask: stat((m) => m.envCallsPerTask),
        tokensPerTask: stat((m) => m.tokensPerTask),
        fidelity: stat((m) => m.fidelity),
        trainWallS: stat((m) => m.trainWallMs / 1000),
        evalWallS: stat((m) => m.evalWallMs / 1000),
      });
    }
  }
  return rows;
}

export interface MeanCurve {
  env: string;
  kind: Curve['kind'];
  method: Method;
  source: string;
  /** Seeds that contributed. */
  seeds: number;
  steps: number[];
  values: number[];
}

/** Per env, kind, method and source: the mean over seeds at each step any seed reported. */
export function meanCurves(curves: readonly Curve[]): MeanCurve[] {
  const groups = new Map<string, Curve[]>();
  for (const c of curves) {
    const key = JSON.stringify([c.env, c.kind, c.method, c.source]);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()].map((group) => {
    const atStep = new Map<number, number[]>();
    for (const c of group) c.steps.forEach((s, i) => Number.isFinite(c.values[i]) && atStep.set(s, [...(atStep.get(s) ?? []), c.values[i]]));
    const steps = [...atStep.keys()].sort((a, b) => a - b);
    const { env, kind, method, source } = group[0];
    return {
      env,
      kind,
      method,
      source,
      seeds: new Set(group.map((c) => c.seed)).size,
      steps,
      values: steps.map((s) => meanStd(atStep.get(s)!)!.mean),
    };
  });
}

/** Colours for the token-level view: how sure the policy was, and which way training pushed each token. */

export type HeatMeasure = 'logprob' | 'advantage';

/**
 * Log-prob → probability p = e^lp, shown as a warm tint that grows as p falls (the surprising
 * tokens stand out). Advantage → diverging: green for positive, red for negative, opacity by
 * |a| / maxAbs. Returns a CSS colour; transparent for missing values.
 */
export function heatColor(measure: HeatMeasure, value: number | undefined, maxAbsAdvantage: number): string {
  if (value === undefined || !Number.isFinite(value)) return 'transparent';
  if (measure === 'logprob') {
    const p = Math.min(1, Math.exp(value));
    return `rgba(230, 90, 20, ${round(0.75 * (1 - p))})`;
  }
  if (maxAbsAdvantage <= 0 || value === 0) return 'transparent';
  const strength = round(0.75 * Math.min(1, Math.abs(value) / maxAbsAdvantage));
  return value > 0 ? `rgba(40, 160, 70, ${strength})` : `rgba(210, 50, 50, ${strength})`;
}

export function maxAbs(values: ArrayLike<number> | null | undefined): number {
  let max = 0;
  for (let i = 0; i < (values?.length ?? 0); i += 1) {
    const v = Math.abs(values![i]!);
    if (Number.isFinite(v) && v > max) max = v;
  }
  return max;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

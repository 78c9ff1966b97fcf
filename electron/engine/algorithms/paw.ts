/**
 * PaW pieces (algorithms.md "PaW"): which transitions get the world-model loss (the top α fraction by
 * the action's mean surprisal H(a_t)), the per-group weight λ_WM,g = 1 − R̄_g / R_max, and the CMAE
 * value the train graph minimises (kept here as the reference the logs and tests use).
 */
import { AlgorithmError } from './errors';
import type { Segment } from './layout';

/** H(a_t) = −(1/|a_t|) Σ log q over the sampled action tokens. */
export function transitionEntropy(actionLogprobs: readonly number[]): number {
  if (actionLogprobs.length === 0) throw new AlgorithmError('transition entropy of an empty action');
  return -actionLogprobs.reduce((s, v) => s + v, 0) / actionLogprobs.length;
}

/** Indices of the ⌈α·n⌉ highest values (ties: earlier index first), in ascending index order. */
export function selectTopFraction(values: readonly number[], alpha: number): number[] {
  if (!(alpha > 0 && alpha <= 1)) throw new AlgorithmError(`alpha must be in (0, 1], got ${alpha}`);
  const keep = Math.min(values.length, Math.ceil(alpha * values.length - 1e-9));
  return values
    .map((v, i) => ({ v, i }))
    .sort((a, b) => b.v - a.v || a.i - b.i)
    .slice(0, keep)
    .map((x) => x.i)
    .sort((a, b) => a - b);
}

/** λ_WM,g = 1 − mean(group rewards) / R_max, clamped to [0, 1]. */
export function worldModelLambda(groupRewards: readonly number[], rMax: number): number {
  if (!(rMax > 0)) throw new AlgorithmError(`R_max must be positive, got ${rMax}`);
  if (groupRewards.length === 0) throw new AlgorithmError('λ_WM of an empty group');
  const mean = groupRewards.reduce((s, v) => s + v, 0) / groupRewards.length;
  return Math.min(1, Math.max(0, 1 - mean / rMax));
}

/** CMAE of one observation: Σ (1 − p) over tokens with p ≤ ρ, divided by the full length. */
export function cmae(tokenProbs: readonly number[], rho: number): number {
  if (tokenProbs.length === 0) throw new AlgorithmError('CMAE of an empty observation');
  return tokenProbs.reduce((s, p) => s + (p <= rho ? 1 - p : 0), 0) / tokenProbs.length;
}

/** A transition of one row: its real observation's token span and the entropy of the action before it. */
export interface Transition {
  /** First observation token (after the `<|obs|>` marker) in the row's token stream. */
  start: number;
  /** One past its closing `<|end|>`. */
  end: number;
  entropy: number;
}

/** Every generated action followed by a real observation, with where that observation sits in the row. */
export function transitions(segments: readonly Segment[]): Transition[] {
  const out: Transition[] = [];
  let offset = 0;
  segments.forEach((s, j) => {
    const next = segments[j + 1];
    if (s.role === 'act' && s.logprobs.length && next?.role === 'env') {
      const obsStart = offset + s.ids.length;
      out.push({ start: obsStart + next.lead, end: obsStart + next.ids.length, entropy: transitionEntropy(s.logprobs) });
    }
    offset += s.ids.length;
  });
  return out;
}

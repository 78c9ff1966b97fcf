// Token-level losses over role masks. Every per-token tensor is [B,T]; position t scores the
// prediction of targets[t]. Aggregation normalisers are graph inputs computed by the trainer over the
// whole optimiser step, so gradients summed over micro-batches equal the full-batch gradient.
import type { Tensor } from '../graph/builder';
import * as F from '../graph/functional';
import { GraphError } from '../graph/types';

export type Aggregation = 'token-mean' | 'seq-mean-token-mean' | 'constant';
export type KlEstimator = 'k1' | 'k2' | 'k3';

/** Per-token log-probabilities of `targets` and entropies of the predictive distributions. */
export function tokenLogprobs(logits: Tensor, targets: Tensor): { logprobs: Tensor; entropy: Tensor } {
  const logp = F.logSoftmax(logits, -1); // [N,V]
  const logprobs = pick(logp, targets); // [B,T]
  // Entropy is a statistic: no gradient flows through it.
  const lp = F.stopGradient(logp); // [N,V]
  const ent = F.neg(F.reduceSum(F.mul(F.exp(lp), lp), [-1], false)); // [N]
  return { logprobs, entropy: F.reshape(ent, targets.shape) };
}

/** log softmax(logits[n]) at targets[n], as [B,T]. */
function pick(logp: Tensor, targets: Tensor): Tensor {
  const picked = F.gatherElements(logp, F.reshape(targets, [logp.shape[0], 1]), 1); // [N,1]
  return F.reshape(picked, targets.shape); // [B,T]
}

/**
 * Per-token log-probabilities of `targets` under softmax(logits / T): the distribution rollouts sample
 * from at temperature T, so the ratio π_θ/π_old compares like with like (verl's actor divides its
 * logits the same way). T is a graph constant: one train graph per run temperature.
 */
export function temperedLogprobs(logits: Tensor, targets: Tensor, temperature: number): Tensor {
  if (!(temperature > 0 && Number.isFinite(temperature))) throw new GraphError(`temperature must be a positive number, got ${temperature}`);
  return pick(F.logSoftmax(F.div(logits, temperature), -1), targets); // [B,T]
}

/**
 * Σ over masked tokens, divided by `norm`:
 * - token-mean: per-token values summed, `norm` = masked tokens in the step;
 * - seq-mean-token-mean: each sequence's token mean summed, `norm` = sequences with any masked token;
 * - constant: per-token values summed, `norm` = a fixed constant (Dr.GRPO).
 */
export function aggregate(perToken: Tensor, mask: Tensor, mode: Aggregation, norm: Tensor): Tensor {
  const masked = F.mul(perToken, mask); // [B,T]
  if (mode !== 'seq-mean-token-mean') return F.div(F.reduceSum(masked, undefined, false), norm);
  const perSeq = F.div(F.reduceSum(masked, [1], false), F.maximum(F.reduceSum(mask, [1], false), 1)); // [B]
  return F.div(F.reduceSum(perSeq, undefined, false), norm);
}

/** Mean of `x` over masked tokens of this micro-batch (for statistics only). */
export function maskedMean(x: Tensor, mask: Tensor): Tensor {
  return F.div(F.reduceSum(F.mul(x, mask), undefined, false), F.maximum(F.reduceSum(mask, undefined, false), 1));
}

export interface SurrogateInputs {
  logprobs: Tensor; // [B,T] current policy
  oldLogprobs: Tensor; // [B,T] behaviour policy
  advantages: Tensor; // [B,T]
  clipLow: Tensor; // scalar ε_low
  clipHigh: Tensor; // scalar ε_high
  dualClip: Tensor; // scalar c (> 1); applied to negative advantages only
}

/** Per-token clipped surrogate: max(−A·ρ, −A·clip(ρ, 1−ε_low, 1+ε_high)), and for A < 0 at most −A·c. */
export function clippedSurrogate(s: SurrogateInputs): { perToken: Tensor; ratio: Tensor; clipped: Tensor } {
  const ratio = F.exp(F.sub(s.logprobs, s.oldLogprobs)); // [B,T]
  const negA = F.neg(s.advantages);
  const lo = F.sub(1, s.clipLow);
  const hi = F.add(1, s.clipHigh);
  const clippedRatio = F.clip(ratio, lo, hi);
  const pessimistic = F.maximum(F.mul(negA, ratio), F.mul(negA, clippedRatio)); // [B,T]
  const dual = F.minimum(pessimistic, F.mul(negA, s.dualClip)); // [B,T]
  const perToken = F.where(F.less(s.advantages, 0), dual, pessimistic); // [B,T]
  const isClipped = F.cast(F.not(F.equal(ratio, clippedRatio)), ratio.dtype); // [B,T] 1 where ρ left the band
  return { perToken, ratio, clipped: isClipped };
}

/** KL(π_θ ‖ π_ref) estimators per token, from log-probs (Schulman's k1, k2, k3). */
export function klPerToken(logprobs: Tensor, refLogprobs: Tensor, kind: KlEstimator): Tensor {
  const logRatio = F.sub(logprobs, refLogprobs); // log π_θ/π_ref
  switch (kind) {
    case 'k1':
      return logRatio;
    case 'k2':
      return F.mul(F.mul(logRatio, logRatio), 0.5);
    case 'k3':
      return F.sub(F.add(F.exp(F.neg(logRatio)), logRatio), 1);
  }
}

/**
 * World-model loss on observation tokens: Σ weight·(1 − p) over tokens with p ≤ ρ (CMAE), or
 * Σ weight·(−log p) (cross-entropy variant). `weights` [B,T] carries the per-transition factor
 * λ / (observation length · selected transitions), zero off the selected observations.
 */
export function worldModelLoss(logprobs: Tensor, weights: Tensor, loss: { kind: 'ce' } | { kind: 'cmae'; rho: Tensor }): Tensor {
  let perToken: Tensor; // [B,T]
  if (loss.kind === 'ce') perToken = F.neg(logprobs);
  else {
    const p = F.exp(logprobs); // [B,T]
    perToken = F.where(F.lessOrEqual(p, loss.rho), F.sub(1, p), 0);
  }
  return F.reduceSum(F.mul(perToken, weights), undefined, false);
}

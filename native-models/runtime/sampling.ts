// Choosing the next token from logits: temperature, top-k, top-p, seeded. Pure functions.

export interface SamplingParams {
  /** 0 = greedy (argmax). */
  temperature: number;
  /** Keep the k most likely tokens; 0 = off. */
  topK: number;
  /** Keep the smallest set whose probability reaches p; 1 = off. */
  topP: number;
}

/** Mulberry32: a small seeded PRNG, so generation is reproducible from a seed. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** log softmax of one row, in float64. */
export function logSoftmax(logits: ArrayLike<number>): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  const lse = max + Math.log(sum);
  return Float64Array.from(logits, (v) => v - lse);
}

export function argmax(xs: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}

/** Samples a token id from one row of logits. */
export function sampleToken(logits: ArrayLike<number>, p: SamplingParams, random: () => number): number {
  if (p.temperature === 0 || p.topK === 1) return argmax(logits);
  const lp = logSoftmax(Array.from(logits, (v) => v / p.temperature));
  let order = Array.from(lp.keys()).sort((a, b) => lp[b] - lp[a]);
  if (p.topK > 0) order = order.slice(0, p.topK);
  if (p.topP < 1) {
    let cum = 0;
    let keep = 0;
    while (keep < order.length && cum < p.topP) cum += Math.exp(lp[order[keep++]]);
    order = order.slice(0, Math.max(keep, 1));
  }
  const weights = order.map((i) => Math.exp(lp[i]));
  let r = random() * weights.reduce((a, b) => a + b, 0);
  for (let j = 0; j < order.length; j++) {
    r -= weights[j];
    if (r <= 0) return order[j];
  }
  return order[order.length - 1];
}

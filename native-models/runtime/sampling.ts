// Choosing the next token from logits: temperature, top-k, top-p, seeded. Pure functions, one pass
// over the vocabulary where the rule allows it: they run once per row per generated token.

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

function max(xs: ArrayLike<number>): number {
  let m = -Infinity;
  for (let i = 0; i < xs.length; i++) if (xs[i] > m) m = xs[i];
  return m;
}

/** log Σ exp(x_i), in float64. */
export function logSumExp(logits: ArrayLike<number>): number {
  const m = max(logits);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - m);
  return m + Math.log(sum);
}

/** log softmax of one row, in float64. */
export function logSoftmax(logits: ArrayLike<number>): Float64Array {
  const lse = logSumExp(logits);
  const out = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = logits[i] - lse;
  return out;
}

/** log softmax(logits)[token] without materialising the row (what generation records per token). */
export function tokenLogprob(logits: ArrayLike<number>, token: number): number {
  return logits[token] - logSumExp(logits);
}

export function argmax(xs: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}

/**
 * Ids whose logit is at least `cutoff`, most likely first (ties by id): a prefix of the whole
 * vocabulary's descending order, found without sorting the tokens below the cutoff.
 */
function leadingIds(logits: ArrayLike<number>, cutoff: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < logits.length; i++) if (logits[i] >= cutoff) ids.push(i);
  return ids.sort((a, b) => logits[b] - logits[a] || a - b);
}

/**
 * The top-k / top-p support: the shortest prefix of the descending order that holds k tokens or
 * reaches probability p. `weight(i)` is token i's unnormalised probability, `total` their sum. The
 * prefix is searched among tokens within a widening logit window of the best one, so a peaked
 * distribution sorts a handful of ids, not the vocabulary.
 */
function truncatedSupport(logits: ArrayLike<number>, p: SamplingParams, top: number, weight: (i: number) => number, total: number): number[] {
  const k = p.topK > 0 ? Math.min(p.topK, logits.length) : logits.length;
  for (let width = 8 * p.temperature; ; width *= 4) {
    const complete = width > 1e4 * p.temperature;
    const ids = leadingIds(logits, complete ? -Infinity : top - width);
    let mass = 0;
    for (let j = 0; j < ids.length; j++) {
      mass += weight(ids[j]) / total;
      if (j + 1 >= k || (p.topP < 1 && mass >= p.topP)) return ids.slice(0, j + 1);
    }
    if (complete) return ids;
  }
}

/** Samples a token id from one row of logits. */
export function sampleToken(logits: ArrayLike<number>, p: SamplingParams, random: () => number): number {
  if (p.temperature === 0 || p.topK === 1) return argmax(logits);
  const top = max(logits);
  const weight = (i: number) => Math.exp((logits[i] - top) / p.temperature);
  let total = 0;
  for (let i = 0; i < logits.length; i++) total += weight(i);
  return draw(logits, p, random, top, weight, total);
}

let scratch = new Float64Array(0);

/**
 * Samples a token and returns it with its log-probability under the distribution it was drawn from:
 * softmax(logits / T), renormalised over the top-k / top-p support when truncated. That is the
 * behaviour policy π_old of a policy-gradient ratio; the trainer scores π_θ at the same T, so an
 * on-policy ratio is exactly 1 (T = 1 log-probs on both sides read 1 too, but then π_old is not the
 * distribution the tokens came from, and the bias never shows). Greedy picks (T = 0, top-k 1) draw from a point mass, whose log-prob (0)
 * says nothing; they record the model's own T = 1 log-prob instead, a confidence figure (RL refuses
 * T = 0 in pre-flight). One pass of exponentials either way.
 */
export function sampleWithLogprob(logits: ArrayLike<number>, p: SamplingParams, random: () => number): { token: number; logprob: number } {
  if (p.temperature === 0 || p.topK === 1) {
    const token = argmax(logits);
    return { token, logprob: tokenLogprob(logits, token) };
  }
  const V = logits.length;
  if (scratch.length < V) scratch = new Float64Array(V);
  const weights = scratch;
  const top = max(logits);
  let total = 0;
  for (let i = 0; i < V; i++) total += weights[i] = Math.exp((logits[i] - top) / p.temperature);
  const { token, mass } = drawWithMass(logits, p, random, top, (i) => weights[i], total);
  return { token, logprob: (logits[token] - top) / p.temperature - Math.log(mass) };
}

function draw(logits: ArrayLike<number>, p: SamplingParams, random: () => number, top: number, weight: (i: number) => number, total: number): number {
  return drawWithMass(logits, p, random, top, weight, total).token;
}

/**
 * Draws from the weights (unnormalised probabilities summing to `total`), truncated by top-k / top-p;
 * `mass` is the weight of the support drawn from (`total` when nothing is truncated).
 */
function drawWithMass(
  logits: ArrayLike<number>,
  p: SamplingParams,
  random: () => number,
  top: number,
  weight: (i: number) => number,
  total: number,
): { token: number; mass: number } {
  if (p.topK === 0 && p.topP >= 1) {
    // Whole vocabulary: inverse CDF in id order, one pass.
    let r = random() * total;
    for (let i = 0; i < logits.length; i++) if ((r -= weight(i)) <= 0) return { token: i, mass: total };
    return { token: logits.length - 1, mass: total };
  }
  const support = truncatedSupport(logits, p, top, weight, total);
  const weights = support.map(weight);
  const mass = weights.reduce((a, b) => a + b, 0);
  let r = random() * mass;
  for (let j = 0; j < support.length; j++) if ((r -= weights[j]) <= 0) return { token: support[j], mass };
  return { token: support[support.length - 1], mass };
}

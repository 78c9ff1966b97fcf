// How many rows of one generate call run together: a chunk's cost is estimated from the shapes its
// prefill and cache will have, and consecutive rows share a chunk while that cost fits a budget, so
// generation's memory follows the budget and not the number of rows (Generator, GeneratorOptions.chunkBytes).
import { type ModelConfig, countParams, headDim } from '../transformer/config';

/**
 * A chunk's default budget: the bytes of the model's weights, at least 1 GiB. Generation then adds
 * about what the model itself costs, which the process already holds two or three times over (the
 * trainer's copy, the baked step session's and ORT's pre-packed one), however many rows a call has.
 * The floor keeps small models' batches whole: tiny's rollout batches (16 rows, 1,024-token context,
 * 480 new tokens each) need ≈ 0.6 GB. SmolLM2-135M on 20 retail tasks needed up to 3.9 GB in one
 * batch (peak RSS 6.4 GB); in 1 GiB chunks it peaks at 3.4 GB with the same greedy tokens.
 */
export function defaultChunkBytes(c: ModelConfig): number {
  return Math.max(2 ** 30, 4 * countParams(c));
}

/**
 * What one row of a chunk costs while the chunk runs, in bytes, for a prefill `shape` (P reused
 * slots, T new tokens): its resident cache (P+T+maxNew−1 slots), its prefill's past (P slots, fed)
 * and presents (P+T slots, twice: ORT's output, then the JS copy), all layers in float32; and one
 * layer's attention scores and probabilities [H,T,P+T] in the prefill (ORT frees them layer by layer;
 * its arena keeps the largest). The MLP's and the logits' transients are an order smaller.
 */
export function rowBytes(c: ModelConfig, { P, T }: { P: number; T: number }, maxNewTokens: number): number {
  const perSlot = c.nLayers * 2 * c.nKvHeads * headDim(c) * 4;
  return perSlot * (3 * (P + T) + maxNewTokens - 1 + P) + 2 * c.nHeads * T * (P + T) * 4;
}

/**
 * Rows 0…n−1 cut into consecutive chunks, each as long as its `cost` stays within `budget` (a row
 * alone may exceed it): memory follows the budget, not the number of rows, and order is kept.
 */
export function chunks(n: number, cost: (rows: readonly number[]) => number, budget: number): number[][] {
  const out: number[][] = [];
  for (let b = 0; b < n; b++) {
    const last = out[out.length - 1];
    if (last && cost([...last, b]) <= budget) last.push(b);
    else out.push([b]);
  }
  return out;
}

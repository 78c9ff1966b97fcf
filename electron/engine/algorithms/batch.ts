/**
 * Rollouts and demonstrations → train-step rows. Rows are split into micro-batches of about
 * `microBatchTokens` tokens (the trainer sums their gradients over one normaliser, so the split
 * changes memory, not the update).
 */
import type { TrainBatch } from '../../../native-models';
import { type Segment, flatten, perToken } from './layout';

export interface TrainRow {
  tokens: number[];
  pgMask?: number[];
  advantages?: number[];
  oldLogprobs?: number[];
  refLogprobs?: number[];
  sftMask?: number[];
  wmWeight?: number[];
}

/** Policy-gradient row: generated tokens of segments with an advantage, their advantage and π_old. */
export function pgRow(segments: readonly Segment[]): TrainRow {
  const trained = (s: Segment) => s.advantage !== undefined;
  return {
    tokens: flatten(segments),
    pgMask: perToken(segments, (s) => (trained(s) ? 1 : 0)),
    advantages: perToken(segments, (s) => (trained(s) ? s.advantage! : 0)),
    oldLogprobs: perToken(segments, (s, k) => s.logprobs[k]),
  };
}

/**
 * Rows the model can take: a rollout whose prompt alone did not fit the context ended before its first
 * act (rollout.ts), so its row is longer than the context and has nothing to train.
 */
export const rowsThatFit = (rows: readonly TrainRow[], maxSeqLen: number): TrainRow[] => rows.filter((r) => r.tokens.length <= maxSeqLen);

/** Micro-batches of whole rows, each at most `maxTokens` tokens unless one row alone is longer. */
export function microBatches(rows: readonly TrainRow[], maxTokens: number): TrainBatch[] {
  const groups: TrainRow[][] = [];
  let cur: TrainRow[] = [];
  let longest = 0;
  for (const r of rows) {
    const nextLongest = Math.max(longest, r.tokens.length);
    // Padded size of the micro-batch is rows × longest row.
    if (cur.length && nextLongest * (cur.length + 1) > maxTokens) {
      groups.push(cur);
      cur = [];
      longest = 0;
    }
    cur.push(r);
    longest = Math.max(longest, r.tokens.length);
  }
  if (cur.length) groups.push(cur);
  return groups.map((g) => {
    const b: TrainBatch = { tokens: g.map((r) => r.tokens) };
    for (const f of ['pgMask', 'advantages', 'oldLogprobs', 'refLogprobs', 'sftMask', 'wmWeight'] as const) if (g[0][f]) b[f] = g.map((r) => r[f]!);
    return b;
  });
}

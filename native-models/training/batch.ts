// Packing token rows into train-step feeds. Per-token arrays (masks, advantages, log-probs) are
// aligned with `tokens`: entry t belongs to token t as a prediction target, so entry 0 is never used.
// Rows are right-padded to the longest row; padding gets attention 0 and every mask 0.

export interface TrainBatch {
  tokens: number[][];
  pgMask?: number[][];
  advantages?: number[][];
  oldLogprobs?: number[][];
  refLogprobs?: number[][];
  sftMask?: number[][];
  wmWeight?: number[][];
}

export const PER_TOKEN_FIELDS = {
  pgMask: 'pg_mask',
  advantages: 'advantages',
  oldLogprobs: 'old_logprobs',
  refLogprobs: 'ref_logprobs',
  sftMask: 'sft_mask',
  wmWeight: 'wm_weight',
} as const satisfies Record<Exclude<keyof TrainBatch, 'tokens'>, string>;

export class BatchError extends Error {
  override readonly name = 'BatchError';
}

export interface PackedBatch {
  B: number;
  /** Graph time steps: longest row − 1. */
  T: number;
  inputIds: BigInt64Array;
  targets: BigInt64Array;
  attentionMask: BigInt64Array;
  positionIds: BigInt64Array;
  /** Per-token float arrays by graph input name, [B,T] row-major, shifted to target positions. */
  perToken: Map<string, Float32Array>;
}

export function packBatch(batch: TrainBatch, limits: { vocabSize: number; maxSeqLen: number }): PackedBatch {
  const rows = batch.tokens;
  if (!Array.isArray(rows) || rows.length === 0) throw new BatchError('batch has no token rows');
  rows.forEach((r, b) => {
    if (r.length < 2) throw new BatchError(`row ${b} has ${r.length} tokens; at least 2 are needed to predict one`);
    if (r.length > limits.maxSeqLen) throw new BatchError(`row ${b} has ${r.length} tokens, over maxSeqLen ${limits.maxSeqLen}`);
    const bad = r.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= limits.vocabSize);
    if (bad >= 0) throw new BatchError(`row ${b} token ${bad} is ${r[bad]}, outside the vocabulary [0, ${limits.vocabSize})`);
  });
  const B = rows.length;
  const T = Math.max(...rows.map((r) => r.length)) - 1;
  const inputIds = new BigInt64Array(B * T);
  const targets = new BigInt64Array(B * T);
  const attentionMask = new BigInt64Array(B * T);
  const positionIds = new BigInt64Array(B * T);
  rows.forEach((r, b) => {
    for (let t = 0; t < r.length - 1; t++) {
      inputIds[b * T + t] = BigInt(r[t]);
      targets[b * T + t] = BigInt(r[t + 1]);
      attentionMask[b * T + t] = 1n;
      positionIds[b * T + t] = BigInt(t);
    }
  });
  const perToken = new Map<string, Float32Array>();
  for (const [field, input] of Object.entries(PER_TOKEN_FIELDS)) {
    const values = batch[field as keyof typeof PER_TOKEN_FIELDS];
    if (!values) continue;
    if (values.length !== B) throw new BatchError(`${field} has ${values.length} rows, tokens has ${B}`);
    const out = new Float32Array(B * T);
    values.forEach((row, b) => {
      if (row.length !== rows[b].length) throw new BatchError(`${field} row ${b} has ${row.length} entries, tokens row has ${rows[b].length}`);
      for (let t = 1; t < row.length; t++) {
        if (!Number.isFinite(row[t])) throw new BatchError(`${field} row ${b} entry ${t} is not a finite number`);
        out[b * T + t - 1] = row[t];
      }
    });
    perToken.set(input, out);
  }
  return { B, T, inputIds, targets, attentionMask, positionIds, perToken };
}

/** Unpacks a [B,T] graph output back to rows aligned with `tokens` (entry 0 is 0). */
export function unpackPerToken(data: Float32Array, tokens: number[][], T: number): number[][] {
  return tokens.map((r, b) => [0, ...Array.from(data.subarray(b * T, b * T + r.length - 1))]);
}

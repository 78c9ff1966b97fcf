// Per-token weights for the world-model loss (PaW CMAE or its cross-entropy variant): each selected
// observation contributes λ·(Σ over its tokens)/(its full length), averaged over the selected
// transitions of the whole update. The graph input `wm_weight` carries exactly these factors.
import { BatchError } from './batch';

export interface ObservationSpan {
  row: number;
  /** First observation token index (aligned with `tokens`, so ≥ 1). */
  start: number;
  /** One past the last observation token. */
  end: number;
  /** λ_WM of the transition's rollout group. */
  lambda: number;
}

/**
 * `tokens`-aligned weights: λ / (observation length · selected transitions) on each selected
 * observation's tokens, 0 elsewhere. `totalSelected` is the count over the whole update when the
 * spans are split across micro-batches (default: `spans.length`).
 */
export function worldModelWeights(tokens: number[][], spans: readonly ObservationSpan[], totalSelected = spans.length): number[][] {
  const out = tokens.map((r) => new Array<number>(r.length).fill(0));
  if (spans.length === 0) return out;
  if (!(totalSelected >= spans.length)) throw new BatchError(`totalSelected (${totalSelected}) is below the ${spans.length} spans given`);
  for (const s of spans) {
    const row = out[s.row];
    if (!row) throw new BatchError(`observation span refers to row ${s.row}, batch has ${tokens.length}`);
    if (!(Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 1 && s.end > s.start && s.end <= row.length))
      throw new BatchError(`observation span [${s.start}, ${s.end}) is not inside row ${s.row} (1..${row.length})`);
    const w = s.lambda / ((s.end - s.start) * totalSelected);
    for (let t = s.start; t < s.end; t++) row[t] += w;
  }
  return out;
}

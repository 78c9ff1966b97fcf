// Keys and values of sequences generated earlier, so that a prompt extending one (the next turn of
// the same rollout: its previous prompt, what it generated, the observation) prefills only its new
// tokens. Entries are valid for one set of weights; the store empties when they change.
import type { ModelConfig, ParamSpec } from '../transformer/config';
import type { Params } from '../transformer/init';
import { WeightStamp } from './weight-stamp';

export interface CachedSequence {
  tokens: number[];
  /** Per layer, key then value: [KV, tokens.length, D] each. */
  kv: Float32Array[];
}

export class PrefixStore {
  private entries: CachedSequence[] = [];
  /** Token sequences held, so a repeat (greedy rows of one prompt) is stored once. */
  private readonly held = new Set<string>();
  private bytes = 0;
  private stamp: WeightStamp | undefined;

  constructor(
    private readonly specs: readonly ParamSpec[],
    /** Entries are dropped oldest first beyond this many bytes; 0 turns the store off. */
    readonly capacityBytes: number,
  ) {}

  /** Keeps the entries only if they were computed with these weights. */
  useWeights(params: Params): void {
    if (this.stamp?.matches(params)) return;
    this.clear();
    this.stamp = new WeightStamp(this.specs, params);
  }

  clear(): void {
    this.entries = [];
    this.held.clear();
    this.bytes = 0;
    this.stamp = undefined;
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The cached sequence sharing the longest prefix with `prompt`, and that length. At most
   * prompt.length − 1 tokens are reused: the prompt's last token must run to give the logits.
   * A prefix of a cached sequence is as good as the whole: a key depends only on the tokens before it.
   */
  longest(prompt: readonly number[]): { entry: CachedSequence; length: number } | null {
    let best: { entry: CachedSequence; length: number } | null = null;
    const limit = prompt.length - 1;
    for (const entry of this.entries) {
      const n = Math.min(limit, entry.tokens.length);
      let k = 0;
      while (k < n && entry.tokens[k] === prompt[k]) k++;
      if (k > 0 && (!best || k > best.length)) best = { entry, length: k };
    }
    return best;
  }

  add(entry: CachedSequence): void {
    const key = entry.tokens.join(',');
    if (this.capacityBytes <= 0 || entry.tokens.length === 0 || this.held.has(key)) return;
    const size = entry.kv.reduce((n, a) => n + a.byteLength, 0);
    if (size > this.capacityBytes) return;
    this.entries.push(entry);
    this.held.add(key);
    this.bytes += size;
    while (this.bytes > this.capacityBytes) {
      const dropped = this.entries.shift()!;
      this.held.delete(dropped.tokens.join(','));
      this.bytes -= dropped.kv.reduce((n, a) => n + a.byteLength, 0);
    }
  }
}

/** Per prompt, the stored sequence whose first `length` tokens it starts with (PrefixStore.longest), or null. */
export type Reuse = ReadonlyArray<{ entry: CachedSequence; length: number } | null>;

/** The prefill's widths: P slots for the longest reused prefix, T for the most tokens left to run. */
export function prefillShape(prompts: readonly number[][], reuse: Reuse): { P: number; T: number } {
  const kept = reuse.map((r) => r?.length ?? 0);
  return { P: Math.max(0, ...kept), T: Math.max(...prompts.map((p, u) => p.length - kept[u])) };
}

/**
 * The prefill's inputs when each prompt may reuse a cached prefix: past keys/values [U,KV,P,D]
 * (each row's reused prefix right-aligned in P slots), the remaining tokens left-padded to T, their
 * positions (continuing after the prefix) and the mask [U,P+T] over both.
 */
export function prefillLayout(
  c: ModelConfig,
  headDim: number,
  prompts: readonly number[][],
  reuse: Reuse,
): { past: Float32Array[]; P: number; ids: number[][]; positions: number[][]; mask: number[][] } {
  const [KV, D] = [c.nKvHeads, headDim];
  const kept = reuse.map((r) => r?.length ?? 0);
  const { P, T } = prefillShape(prompts, reuse);
  const past = Array.from({ length: 2 * c.nLayers }, () => new Float32Array(prompts.length * KV * P * D));
  reuse.forEach((r, u) => {
    if (!r) return;
    const n = r.entry.tokens.length;
    past.forEach((dst, j) => {
      for (let h = 0; h < KV; h++) dst.set(r.entry.kv[j].subarray(h * n * D, (h * n + r.length) * D), ((u * KV + h) * P + P - r.length) * D);
    });
  });
  const ids: number[][] = [];
  const positions: number[][] = [];
  const mask: number[][] = [];
  prompts.forEach((p, u) => {
    const rest = p.slice(kept[u]);
    const pad = T - rest.length;
    ids.push([...new Array<number>(pad).fill(0), ...rest]);
    positions.push([...new Array<number>(pad).fill(0), ...rest.map((_, t) => kept[u] + t)]);
    mask.push([...new Array<number>(P - kept[u]).fill(0), ...new Array<number>(kept[u]).fill(1), ...new Array<number>(pad).fill(0), ...new Array<number>(rest.length).fill(1)]);
  });
  return { past, P, ids, positions, mask };
}

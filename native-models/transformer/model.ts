// Llama-family decoder as an ONNX graph, read top to bottom.
// Legend: B batch, T time, N = B*T rows, C model width, H query heads, KV key/value heads,
// G = H/KV query heads per KV head, D head width, F MLP width, V vocab.
// The residual stream stays 2-D [N, C] so every projection is a Gemm with transB=1 against the
// Hugging Face [out, in] weight: no Transpose nodes on weights, forward or backward.
import type { Graph, Tensor } from '../graph/builder';
import * as F from '../graph/functional';
import type { DType, Dim } from '../graph/types';
import { type LoraTarget, type ModelConfig, headDim, paramSpecs } from './config';

export interface ModelInputs {
  inputIds: Tensor; // [B,T] int64
  attentionMask: Tensor; // [B,T] ([B,P+T] with a cache) int64, 1 = real token, 0 = padding
  positionIds: Tensor; // [B,T] int64
}

export interface ModelGraph {
  inputs: ModelInputs;
  /** Parameter inputs by Hugging Face name. */
  params: Map<string, Tensor>;
  logits: Tensor; // [N,V]; [B,V] (last position) with a cache
  /** Per layer present key/value [B,KV,P+T,D] with a cache; the new position's [B,KV,1,D] with a resident one. */
  presents?: { key: Tensor; value: Tensor }[];
}

/** Masked-out scores get this bias; finite so fully padded rows stay finite. */
const MASK_BIAS = -1e9;

/** x / sqrt(mean(x², last axis) + eps) · w. */
function rmsNorm(x: Tensor, w: Tensor, eps: number): Tensor {
  const ms = F.reduceMean(F.mul(x, x), [-1]); // [..., 1]
  return F.mul(F.div(x, F.sqrt(F.add(ms, eps))), w); // [..., C]
}

/** Linear layer on [N, in] with an [out, in] weight, optional bias and optional LoRA adapter. */
function linear(c: ModelConfig, P: Map<string, Tensor>, prefix: string, target: LoraTarget, x: Tensor): Tensor {
  const name = `${prefix}.${target}`;
  return x.graph.withScope(name, () => {
    const y = F.gemm(x, P.get(`${name}.weight`)!, P.get(`${name}.bias`), { transB: true }); // [N, out]
    if (!c.lora?.targets.includes(target)) return y;
    const down = F.gemm(x, P.get(`${name}.lora_A.weight`)!, undefined, { transB: true }); // [N, r]
    const up = F.gemm(down, P.get(`${name}.lora_B.weight`)!, undefined, { transB: true, alpha: c.lora.alpha / c.lora.rank }); // [N, out]
    return F.add(y, up);
  });
}

/** cos/sin tables for positions: each [B,T,1,D], broadcasting over heads. */
function ropeTables(c: ModelConfig, positionIds: Tensor, dtype: DType): { cos: Tensor; sin: Tensor } {
  const g = positionIds.graph;
  const D = headDim(c);
  const invFreq = Array.from({ length: D / 2 }, (_, i) => 1 / Math.pow(c.ropeTheta, (2 * i) / D));
  const pos = F.unsqueeze(F.cast(positionIds, dtype), [-1]); // [B,T,1]
  const freqs = F.mul(pos, g.constant(invFreq, dtype)); // [B,T,D/2]
  const angles = F.unsqueeze(F.concat([freqs, freqs], -1), [2]); // [B,T,1,D]
  return { cos: F.cos(angles), sin: F.sin(angles) }; // [B,T,1,D] each
}

/** x·cos + rotate_half(x)·sin on [B,T,heads,D] (Hugging Face's half-split rotation). */
function applyRope(x: Tensor, cos: Tensor, sin: Tensor, D: number): Tensor {
  const [lo, hi] = [F.slice(x, -1, 0, D / 2), F.slice(x, -1, D / 2, D)]; // [B,T,h,D/2] each
  const rotated = F.concat([F.neg(hi), lo], -1); // [B,T,h,D]
  return F.add(F.mul(x, cos), F.mul(rotated, sin)); // [B,T,h,D]
}

/** Repeats each KV head G times along axis 1: [B,KV,a,b] → [B,H,a,b]. */
function repeatKv(x: Tensor, G: number, H: number): Tensor {
  if (G === 1) return x;
  const [B, KV, a, b] = x.shape;
  const e = F.expand(F.unsqueeze(x, [2]), [B, KV, G, a, b]); // [B,KV,G,a,b]
  return F.reshape(e, [B, H, a, b]); // [B,H,a,b]
}

/**
 * Key/value cache of one layer (keys after RoPE). Growing: past [B,KV,P,D] in, present
 * [B,KV,P+T,D] out. Resident: fixed-capacity slots [B,KV,S,D] in, only the step's [B,KV,1,D] out.
 */
interface LayerCache {
  pastKey: Tensor;
  pastValue: Tensor;
  presentKey?: Tensor;
  presentValue?: Tensor;
}

/**
 * One-token attention against a resident cache. The S slots are never concatenated with the new
 * key (that would copy the whole cache every step): the softmax is taken over the two parts, with
 * one shared max, and their weighted values summed. Query heads are grouped per KV head
 * ([B,KV,G,D], head h = kv·G + g) so the cache is not repeated for GQA either.
 */
function residentAttention(q: Tensor, k: Tensor, v: Tensor, slotBias: Tensor, cache: LayerCache, KV: number, G: number, D: number): Tensor {
  // One query row per (batch, KV head, group member): [B,KV,G,1,D]. Each product below is then a
  // vector against one head's cache, which ORT runs as a matrix-vector product (no packing).
  const qg = F.reshape(q, ['B', KV, G, 1, D]); // [B,KV,G,1,D] (T = 1)
  const kNew = F.reshape(k, ['B', KV, 1, D]); // [B,1,KV,D] → [B,KV,1,D], same layout when T = 1
  const vNew = F.reshape(v, ['B', KV, 1, D]); // [B,KV,1,D]
  cache.presentKey = kNew;
  cache.presentValue = vNew;
  const keys = F.unsqueeze(cache.pastKey, [2]); // [B,KV,1,S,D]
  const values = F.unsqueeze(cache.pastValue, [2]); // [B,KV,1,S,D]
  const bias = F.unsqueeze(slotBias, [1]); // [B,1,1,1,S]
  const slotScores = F.add(F.matmul(qg, F.transpose(keys, [0, 1, 2, 4, 3])), bias); // [B,KV,G,1,S]
  const newScore = F.reduceSum(F.mul(qg, F.unsqueeze(kNew, [2])), [-1]); // [B,KV,G,1,1]
  const top = F.maximum(F.reduceMax(slotScores, [-1]), newScore); // [B,KV,G,1,1]
  const slotWeights = F.exp(F.sub(slotScores, top)); // [B,KV,G,1,S], 0 on unused slots
  const newWeight = F.exp(F.sub(newScore, top)); // [B,KV,G,1,1]
  const total = F.add(F.reduceSum(slotWeights, [-1]), newWeight); // [B,KV,G,1,1]
  const mixed = F.add(F.matmul(slotWeights, values), F.mul(newWeight, F.unsqueeze(vNew, [2]))); // [B,KV,G,1,D]
  return F.reshape(F.div(mixed, total), ['B*T', KV * G * D]); // [N,H·D]
}

function attention(c: ModelConfig, P: Map<string, Tensor>, i: number, h: Tensor, rope: { cos: Tensor; sin: Tensor }, bias: Tensor, cache?: LayerCache, resident = false): Tensor {
  const [H, KV, D] = [c.nHeads, c.nKvHeads, headDim(c)];
  const prefix = `model.layers.${i}.self_attn`;
  let q = F.reshape(linear(c, P, prefix, 'q_proj', h), ['B', 'T', H, D]); // [B,T,H,D]
  let k = F.reshape(linear(c, P, prefix, 'k_proj', h), ['B', 'T', KV, D]); // [B,T,KV,D]
  const v = F.reshape(linear(c, P, prefix, 'v_proj', h), ['B', 'T', KV, D]); // [B,T,KV,D]
  if (c.qkNorm) {
    q = rmsNorm(q, P.get(`${prefix}.q_norm.weight`)!, c.normEps); // [B,T,H,D]
    k = rmsNorm(k, P.get(`${prefix}.k_norm.weight`)!, c.normEps); // [B,T,KV,D]
  }
  q = F.mul(applyRope(q, rope.cos, rope.sin, D), 1 / Math.sqrt(D)); // [B,T,H,D], pre-scaled
  k = applyRope(k, rope.cos, rope.sin, D); // [B,T,KV,D]
  if (cache && resident) return linear(c, P, prefix, 'o_proj', residentAttention(q, k, v, bias, cache, KV, H / KV, D)); // [N,C]
  const qh = F.transpose(q, [0, 2, 1, 3]); // [B,H,T,D]
  let kT: Tensor; // [B,KV,D,L], L = key length (T, or P+T with a cache)
  let vh = F.transpose(v, [0, 2, 1, 3]); // [B,KV,T,D]
  if (cache) {
    cache.presentKey = F.concat([cache.pastKey, F.transpose(k, [0, 2, 1, 3])], 2); // [B,KV,P+T,D]
    cache.presentValue = vh = F.concat([cache.pastValue, vh], 2); // [B,KV,P+T,D]
    kT = F.transpose(cache.presentKey, [0, 1, 3, 2]); // [B,KV,D,P+T]
  } else kT = F.transpose(k, [0, 2, 3, 1]); // [B,KV,D,T]
  kT = repeatKv(kT, H / KV, H); // [B,H,D,L]
  vh = repeatKv(vh, H / KV, H); // [B,H,L,D]
  const probs = F.softmax(F.add(F.matmul(qh, kT), bias), -1); // [B,H,T,L]
  const o = F.transpose(F.matmul(probs, vh), [0, 2, 1, 3]); // [B,T,H,D]
  return linear(c, P, prefix, 'o_proj', F.reshape(o, ['B*T', H * D])); // [N,C]
}

function mlp(c: ModelConfig, P: Map<string, Tensor>, i: number, h: Tensor): Tensor {
  const prefix = `model.layers.${i}.mlp`;
  const gate = linear(c, P, prefix, 'gate_proj', h); // [N,F]
  const up = linear(c, P, prefix, 'up_proj', h); // [N,F]
  const silu = F.mul(gate, F.sigmoid(gate)); // [N,F]
  return linear(c, P, prefix, 'down_proj', F.mul(silu, up)); // [N,C]
}

/**
 * Additive attention bias [B,1,T,L] over L keys (L = T, or P+T with a cache): 0 where query t
 * (absolute position P+t) may see key s, i.e. s ≤ P+t and s is not padding; -1e9 elsewhere.
 */
function attentionBias(mask: Tensor, T: Dim, L: Dim, dtype: DType): Tensor {
  const g = mask.graph;
  const ones = g.op1('ConstantOfShape', [g.shapeTensor([T, L])], { value: { dtype, value: 1 } }, { hint: [T, L] }); // [T,L]
  const past = L === T ? g.constant([0], 'int64', []) : F.squeeze(F.sub(g.shapeTensor([L]), g.shapeTensor([T])), [0]); // P
  const lower = g.op1('Trilu', [ones, past], { upper: 0 }); // [T,L]: 1 where s ≤ P+t
  const causal = F.mul(F.sub(lower, 1), -MASK_BIAS); // [T,L]
  return F.add(keyPaddingBias(mask, dtype), causal); // [B,1,T,L]
}

/** Additive bias [B,1,1,L]: 0 on real keys, -1e9 on padding and unused cache slots. */
function keyPaddingBias(mask: Tensor, dtype: DType): Tensor {
  return F.unsqueeze(F.mul(F.sub(F.cast(mask, dtype), 1), -MASK_BIAS), [1, 2]); // [B,1,1,L]
}

export interface BuildOptions {
  /**
   * Key/value cache for generation: adds inputs `past_key_values.{i}.key/value` [B,KV,P,D], outputs
   * `present.{i}.key/value` [B,KV,P+T,D], takes `attention_mask` over P+T keys and returns the logits
   * of the last position only ([B,V]).
   */
  cache?: boolean;
  /**
   * One-token decode against a fixed-capacity cache (our runtime, not the export): inputs
   * `input_ids`/`position_ids` [B,1], `cache.{i}.key/value` [B,KV,S,D], `attention_mask` [B,S]
   * (1 on slots that hold a real token; the new token always sees itself); outputs only the new position's
   * `step.{i}.key/value` [B,KV,1,D], which the caller writes into its slot.
   */
  residentCache?: boolean;
  /**
   * With `cache`: keep the logits of every position ([N,V]) instead of the last one. Optimum's
   * causal-LM convention (the ONNX export) returns [B,T,V]; our runtime needs only the last.
   */
  allPositions?: boolean;
}

/** Declares inputs and parameters on `g` and builds logits ([N,V], or [B,V] with a cache). */
export function buildModel(g: Graph, c: ModelConfig, dtype: DType = 'float32', opts: BuildOptions = {}): ModelGraph {
  const resident = opts.residentCache === true;
  // A resident-cache step feeds one token (T = 1; the [B,KV,G,D] reshapes reject more).
  const L: Dim = resident ? 'S' : opts.cache ? 'P+T' : 'T'; // key length (resident: cache slots only)
  const inputs: ModelInputs = {
    inputIds: g.input('input_ids', 'int64', ['B', 'T']),
    attentionMask: g.input('attention_mask', 'int64', ['B', L]),
    positionIds: g.input('position_ids', 'int64', ['B', 'T']),
  };
  const P = new Map(paramSpecs(c, dtype).map((s) => [s.name, g.input(s.name, dtype, s.shape)]));
  const [KV, D] = [c.nKvHeads, headDim(c)];
  const [cacheName, cacheLen] = resident ? ['cache', 'S'] : ['past_key_values', 'P'];
  const caches: LayerCache[] | undefined =
    opts.cache || resident
      ? Array.from({ length: c.nLayers }, (_, i) => ({
          pastKey: g.input(`${cacheName}.${i}.key`, dtype, ['B', KV, cacheLen, D]),
          pastValue: g.input(`${cacheName}.${i}.value`, dtype, ['B', KV, cacheLen, D]),
        }))
      : undefined;
  const logits = g.withScope('model', () => {
    const embed = P.get('model.embed_tokens.weight')!; // [V,C]
    let x = F.reshape(F.gather(embed, inputs.inputIds), ['B*T', c.dModel]); // [N,C]
    const rope = g.withScope('rope', () => ropeTables(c, inputs.positionIds, dtype)); // [B,T,1,D] x2
    // With a resident cache the one new token may see every real slot: key padding only, [B,1,1,S].
    const bias = g.withScope('mask', () => (resident ? keyPaddingBias(inputs.attentionMask, dtype) : attentionBias(inputs.attentionMask, 'T', L, dtype))); // [B,1,T,L]
    for (let i = 0; i < c.nLayers; i++) {
      g.withScope(`layers.${i}`, () => {
        const h = rmsNorm(x, P.get(`model.layers.${i}.input_layernorm.weight`)!, c.normEps); // [N,C]
        x = F.add(x, g.withScope('attn', () => attention(c, P, i, h, rope, bias, caches?.[i], resident))); // [N,C]
        const m = g.withScope('mlp', () => mlp(c, P, i, rmsNorm(x, P.get(`model.layers.${i}.post_attention_layernorm.weight`)!, c.normEps)));
        x = F.add(x, m); // [N,C]
      });
    }
    let hN = rmsNorm(x, P.get('model.norm.weight')!, c.normEps); // [N,C]
    if (opts.cache && !resident && !opts.allPositions) hN = F.gather(F.reshape(hN, ['B', 'T', c.dModel]), g.constant([-1], 'int64', []), 1); // [B,C] last position
    const head = P.get(c.tiedEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight')!; // [V,C]
    return g.withScope('lm_head', () => F.gemm(hN, head, undefined, { transB: true })); // [N,V] or [B,V]
  });
  const presents = caches?.map((k) => ({ key: k.presentKey!, value: k.presentValue! }));
  return { inputs, params: P, logits, presents };
}

import { describe, expect, it } from 'vitest';
import type { HostTensor } from '../../../../native-models/io/dtype';
import { decodeGguf, encodeGguf, GgufError } from '../../../../native-models/io/gguf';
import { hfToGguf, permuteForInterleavedRope, tensorTypeFor } from '../../../../native-models/io/gguf-export';
import { dequantize } from '../../../../native-models/io/gguf-quants';
import { f16ToFloat32 } from '../../../../native-models/io/half';
import type { HfModelShape } from '../../../../native-models/io/hf-config';
import { expectedHfTensors } from '../../../../native-models/io/hf-tensors';
import { trainTokenizer } from '../../../../native-models/tokenizer/text-tokenizer';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

const tokenizer = trainTokenizer(['order #W1 delivered', 'order #W2 cancelled', 'order #W3 delivered'], { vocabSize: 290 });

const llama: HfModelShape = {
  vocabSize: tokenizer.vocabSize + 6, // padded embedding rows with no token
  dModel: 8,
  nLayers: 2,
  nHeads: 2,
  nKvHeads: 1,
  dFf: 12,
  ropeTheta: 10000,
  normEps: 1e-5,
  tiedEmbeddings: false,
  qkvBias: false,
  qkNorm: false,
  maxSeqLen: 32,
  headDim: 4,
};

function randomWeights(shape: HfModelShape, seed: number): Map<string, HostTensor> {
  const r = rng(seed);
  return new Map(
    expectedHfTensors(shape).map((t) => [t.name, { dtype: 'F32' as const, shape: t.shape, data: Float32Array.from({ length: t.shape.reduce((a, b) => a * b, 1) }, r) }]),
  );
}

const source = { json: tokenizer.json, chatTemplate: tokenizer.chatTemplate, eosTokenId: tokenizer.eosTokenId, padTokenId: tokenizer.padTokenId };

/** Rotate one head vector at position p: half-split pairs (HF) or adjacent pairs (llama.cpp "llama"). */
function rope(x: Float32Array, p: number, interleaved: boolean): Float64Array {
  const d = x.length;
  const out = new Float64Array(d);
  for (let j = 0; j < d / 2; j++) {
    const angle = p * 10000 ** ((-2 * j) / d);
    const [i0, i1] = interleaved ? [2 * j, 2 * j + 1] : [j, j + d / 2];
    out[i0] = x[i0] * Math.cos(angle) - x[i1] * Math.sin(angle);
    out[i1] = x[i1] * Math.cos(angle) + x[i0] * Math.sin(angle);
  }
  return out;
}

function project(w: Float32Array, rows: number, cols: number, x: Float32Array): Float32Array {
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r] += w[r * cols + c] * x[c];
  return out;
}

describe('permuteForInterleavedRope', () => {
  it('moves row j + D/2 next to row j within each head', () => {
    const rows = Float32Array.from({ length: 8 }, (_, i) => i); // 2 heads x D=4, one column
    expect(Array.from(permuteForInterleavedRope(rows, 2, 4, 1))).toEqual([0, 2, 1, 3, 4, 6, 5, 7]);
  });

  it('makes interleaved RoPE give the same attention scores as half-split RoPE on the original weights', () => {
    const r = rng(4);
    const [heads, d, c] = [3, 8, 5];
    const wq = Float32Array.from({ length: heads * d * c }, r);
    const wk = Float32Array.from({ length: heads * d * c }, r);
    const xq = Float32Array.from({ length: c }, r);
    const xk = Float32Array.from({ length: c }, r);
    const q = project(wq, heads * d, c, xq);
    const k = project(wk, heads * d, c, xk);
    const qp = project(permuteForInterleavedRope(wq, heads, d, c), heads * d, c, xq);
    const kp = project(permuteForInterleavedRope(wk, heads, d, c), heads * d, c, xk);
    const dot = (a: Float64Array, b: Float64Array) => a.reduce((s, v, i) => s + v * b[i], 0);
    for (let h = 0; h < heads; h++) {
      const head = (v: Float32Array) => v.subarray(h * d, (h + 1) * d);
      const reference = dot(rope(head(q), 7, false), rope(head(k), 3, false));
      const exported = dot(rope(head(qp), 7, true), rope(head(kp), 3, true));
      expect(exported).toBeCloseTo(reference, 5);
      // and the scores do depend on the pairing: interleaved RoPE on unpermuted weights differs
      expect(Math.abs(dot(rope(head(q), 7, true), rope(head(k), 3, true)) - reference)).toBeGreaterThan(1e-4);
    }
  });
});

describe('hfToGguf', () => {
  it('writes llama metadata, the byte-level BPE vocabulary and llama.cpp tensor names', () => {
    const weights = randomWeights(llama, 1);
    const file = decodeGguf(encodeGguf(hfToGguf({ shape: llama, weights, tokenizer: source, name: 'tiny' })));
    const meta = (k: string) => file.metadata.get(k)?.value;
    expect(meta('general.architecture')).toBe('llama');
    expect(meta('general.name')).toBe('tiny');
    expect(meta('llama.block_count')).toBe(2);
    expect(meta('llama.attention.head_count_kv')).toBe(1);
    expect(meta('llama.rope.dimension_count')).toBe(4);
    expect(meta('llama.attention.layer_norm_rms_epsilon')).toBeCloseTo(1e-5, 10);
    expect(meta('tokenizer.ggml.model')).toBe('gpt2');
    expect(meta('tokenizer.ggml.pre')).toBe('qwen2');
    const tokens = meta('tokenizer.ggml.tokens') as string[];
    const types = meta('tokenizer.ggml.token_type') as number[];
    expect(tokens).toHaveLength(llama.vocabSize);
    expect(tokens.slice(0, 2)).toEqual(['<|system|>', '<|user|>']);
    expect(types.slice(0, 8)).toEqual(Array(8).fill(3));
    expect(types[8]).toBe(1);
    expect(tokens.at(-1)).toBe(`[PAD${llama.vocabSize - 1}]`);
    expect(types.at(-1)).toBe(5);
    const merges = meta('tokenizer.ggml.merges') as string[];
    expect(merges[0]).toBe((tokenizer.json.model.merges as string[][])[0].join(' '));
    expect(meta('tokenizer.ggml.eos_token_id')).toBe(tokenizer.eosTokenId);
    expect(meta('tokenizer.chat_template')).toBe(tokenizer.chatTemplate);

    const byName = new Map(file.tensors.map((t) => [t.name, t]));
    expect(byName.size).toBe(expectedHfTensors(llama).length);
    expect(byName.get('token_embd.weight')!.data).toEqual(weights.get('model.embed_tokens.weight')!.data);
    expect(byName.get('blk.1.ffn_down.weight')!.shape).toEqual([8, 12]);
    expect(byName.get('blk.1.attn_v.weight')!.data).toEqual(weights.get('model.layers.1.self_attn.v_proj.weight')!.data);
    expect(byName.get('blk.0.attn_q.weight')!.data).toEqual(permuteForInterleavedRope(weights.get('model.layers.0.self_attn.q_proj.weight')!.data as Float32Array, 2, 4, 8));
    expect(byName.get('blk.0.attn_k.weight')!.data).toEqual(permuteForInterleavedRope(weights.get('model.layers.0.self_attn.k_proj.weight')!.data as Float32Array, 1, 4, 8));
    expect(byName.get('output.weight')!.data).toEqual(weights.get('lm_head.weight')!.data);
  });

  it('stores matrices as F16 on request and keeps norms F32', () => {
    const weights = randomWeights(llama, 2);
    const file = decodeGguf(encodeGguf(hfToGguf({ shape: llama, weights, tokenizer: source, dtype: 'F16' })));
    expect(file.metadata.get('general.file_type')?.value).toBe(1);
    const embd = file.tensors.find((t) => t.name === 'token_embd.weight')!;
    expect(embd.type).toBe('F16');
    const original = weights.get('model.embed_tokens.weight')!.data as Float32Array;
    const back = f16ToFloat32(embd.data as Uint16Array);
    for (let i = 0; i < original.length; i++) expect(back[i]).toBeCloseTo(original[i], 3);
    expect(file.tensors.find((t) => t.name === 'blk.0.attn_norm.weight')!.type).toBe('F32');
  });

  it('stores matrices as Q8_0 where rows are whole 32-weight blocks, F16 where not, norms and biases F32', () => {
    // Rows of 64 (d_model) quantise; down_proj's rows of 48 (d_ff) cannot and fall back to F16, as llama.cpp's converter does.
    const wide: HfModelShape = { ...llama, dModel: 64, dFf: 48, nHeads: 4, nKvHeads: 2, headDim: 16, qkvBias: true };
    const weights = randomWeights(wide, 6);
    const file = decodeGguf(encodeGguf(hfToGguf({ shape: wide, weights, tokenizer: source, dtype: 'Q8_0' })));
    expect(file.metadata.get('general.file_type')?.value).toBe(7);
    const types = new Map(file.tensors.map((t) => [t.name, t.type]));
    expect(Object.fromEntries(['token_embd.weight', 'blk.0.attn_q.weight', 'blk.0.ffn_up.weight', 'blk.0.ffn_down.weight', 'blk.0.attn_q.bias', 'blk.0.ffn_norm.weight', 'output.weight'].map((n) => [n, types.get(n)]))).toEqual({
      'token_embd.weight': 'Q8_0',
      'blk.0.attn_q.weight': 'Q8_0',
      'blk.0.ffn_up.weight': 'Q8_0',
      'blk.0.ffn_down.weight': 'F16',
      'blk.0.attn_q.bias': 'F32',
      'blk.0.ffn_norm.weight': 'F32',
      'output.weight': 'Q8_0',
    });
    // Read back, each weight is within half a step (max |x| of its block / 254, plus the scale's f16 rounding).
    const embd = file.tensors.find((t) => t.name === 'token_embd.weight')!;
    const back = dequantize('Q8_0', embd.data as Uint8Array, wide.vocabSize * wide.dModel);
    const original = weights.get('model.embed_tokens.weight')!.data as Float32Array;
    for (let b = 0; b < original.length / 32; b++) {
      const block = original.subarray(b * 32, b * 32 + 32);
      const amax = Math.max(...Array.from(block, Math.abs));
      for (let j = 0; j < 32; j++) expect(Math.abs(back[b * 32 + j] - block[j])).toBeLessThanOrEqual(amax / 254 + amax * 2 ** -10);
    }
    expect(tensorTypeFor([64], 'Q8_0')).toBe('F32');
    expect(tensorTypeFor([3, 64], 'F32')).toBe('F32');
    expect(() => hfToGguf({ shape: wide, weights, tokenizer: source, dtype: 'Q4_0' as 'Q8_0' })).toThrow(/dtype must be one of F32, F16, Q8_0/);
  });

  it('maps Qwen3 (q/k norms, no permutation) and Qwen2 (q/k/v biases), tied heads without output.weight', () => {
    const qwen3 = { ...llama, qkNorm: true, tiedEmbeddings: true };
    const w3 = randomWeights(qwen3, 3);
    const f3 = decodeGguf(encodeGguf(hfToGguf({ shape: qwen3, weights: w3, tokenizer: source })));
    const n3 = new Map(f3.tensors.map((t) => [t.name, t]));
    expect(f3.metadata.get('general.architecture')?.value).toBe('qwen3');
    expect(f3.metadata.get('qwen3.block_count')?.value).toBe(2);
    expect(n3.get('blk.0.attn_q_norm.weight')!.shape).toEqual([4]);
    expect(n3.get('blk.0.attn_q.weight')!.data).toEqual(w3.get('model.layers.0.self_attn.q_proj.weight')!.data);
    expect(n3.has('output.weight')).toBe(false);
    const qwen2 = { ...llama, qkvBias: true };
    const f2 = hfToGguf({ shape: qwen2, weights: randomWeights(qwen2, 4), tokenizer: source });
    expect(f2.tensors.map((t) => t.name)).toContain('blk.1.attn_k.bias');
    expect(f2.metadata.get('general.architecture')?.value).toBe('qwen2');
  });

  it('refuses weights that do not match the shape, and tokenizers it cannot describe', () => {
    const weights = randomWeights(llama, 5);
    weights.delete('model.norm.weight');
    expect(() => hfToGguf({ shape: llama, weights, tokenizer: source })).toThrow(/tensor "model\.norm\.weight" \[8\] is missing/);
    const small = { ...llama, vocabSize: tokenizer.vocabSize - 1 };
    expect(() => hfToGguf({ shape: small, weights: randomWeights(small, 6), tokenizer: source })).toThrow(GgufError);
    const odd = { ...source, json: { ...source.json, pre_tokenizer: { type: 'Whitespace' } } };
    expect(() => hfToGguf({ shape: llama, weights: randomWeights(llama, 7), tokenizer: odd })).toThrow(/pre-tokenizer has no llama\.cpp equivalent/);
  });
});

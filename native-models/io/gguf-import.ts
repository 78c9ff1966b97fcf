// A llama.cpp GGUF model → a Hugging Face folder (config.json, tokenizer files, model.safetensors in float32),
// so the HF import validates and stores it like any other. The inverse of gguf-export.ts: the same tensor
// names and metadata keys, the "llama" RoPE row permutation undone, every tensor dequantised to float32
// (exactly, by gguf-quants.ts). Architectures, tokenizers and features our transformer lacks are refused
// by name; nothing is dropped silently.

import { join } from 'node:path';
import type { HostTensor } from './dtype';
import { GgufError, type GgufFile } from './gguf';
import { GGUF_ARCH, ggufTensorNames, permuteForInterleavedRope } from './gguf-export';
import { dequantize } from './gguf-quants';
import { hfTokenizerFromGguf, metaInt, metaString, type GgufMetadata } from './gguf-tokenizer';
import { type HfModelShape, parseHfConfig, toHfConfig, writeHfConfig } from './hf-config';
import { writeSafetensors } from './safetensors';
import { writeTokenizerFiles } from '../tokenizer/tokenizer-files';

type GgufArch = (typeof GGUF_ARCH)[keyof typeof GGUF_ARCH];
const ARCHES = Object.values(GGUF_ARCH) as GgufArch[];

function metaNumber(meta: GgufMetadata, key: string): number | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  if (v.type === 'f64') return v.value;
  if (v.type !== 'f32') throw new GgufError('BAD_VALUE', `metadata "${key}" must be a float, got ${v.type}`);
  return shortestFloat32(v.value);
}

/**
 * The shortest decimal that is the same float32, as config.json would write it: llama.cpp's converter stores
 * rms_norm_eps 1e-5 as the float32 9.99999975e-6, and the model means 1e-5.
 */
function shortestFloat32(x: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(x.toPrecision(digits));
    if (Math.fround(candidate) === x) return candidate;
  }
  return x;
}

function required<T>(value: T | undefined, key: string): T {
  if (value === undefined) throw new GgufError('MISSING_KEY', `the file has no "${key}"`);
  return value;
}

/** The decoder's shape from the `<arch>.*` keys, checked against config.json's bounds (HF_CONFIG_MAXIMA). */
export function ggufModelShape(file: Pick<GgufFile, 'metadata' | 'tensors'>): HfModelShape {
  const meta = file.metadata;
  const arch = required(metaString(meta, 'general.architecture'), 'general.architecture');
  if (!(ARCHES as string[]).includes(arch)) throw new GgufError('UNSUPPORTED_ARCHITECTURE', `architecture "${arch}" is not supported (supported: ${ARCHES.join(', ')})`);
  const key = (k: string) => `${arch}.${k}`;
  const int = (k: string) => metaInt(meta, key(k));
  const scaling = metaString(meta, key('rope.scaling.type'));
  if (scaling !== undefined && scaling !== 'none') throw new GgufError('UNSUPPORTED_ARCHITECTURE', `${key('rope.scaling.type')} "${scaling}" (RoPE scaling) is not supported by this runtime`);
  const byName = new Map(file.tensors.map((t) => [t.name, t]));
  for (const extra of ['rope_freqs.weight']) if (byName.has(extra)) throw new GgufError('UNSUPPORTED_ARCHITECTURE', `tensor "${extra}" (per-frequency RoPE scaling) is not supported by this runtime`);
  const embedding = byName.get('token_embd.weight');
  if (!embedding || embedding.shape.length !== 2) throw new GgufError('BAD_TENSOR', 'the file has no 2-D "token_embd.weight"');
  const dModel = required(int('embedding_length'), key('embedding_length'));
  const nHeads = required(int('attention.head_count'), key('attention.head_count'));
  const headDim = int('attention.key_length') ?? dModel / nHeads;
  const valueDim = int('attention.value_length') ?? headDim;
  if (valueDim !== headDim) throw new GgufError('UNSUPPORTED_ARCHITECTURE', `${key('attention.value_length')} ${valueDim} differs from the key length ${headDim}`);
  const ropeDim = int('rope.dimension_count') ?? headDim;
  if (ropeDim !== headDim) throw new GgufError('UNSUPPORTED_ARCHITECTURE', `${key('rope.dimension_count')} ${ropeDim} rotates part of each ${headDim}-wide head (partial RoPE), which this runtime does not`);
  const vocabSize = embedding.shape[0];
  const declared = int('vocab_size');
  if (declared !== undefined && declared !== vocabSize) throw new GgufError('BAD_VALUE', `${key('vocab_size')} ${declared} differs from token_embd.weight's ${vocabSize} rows`);
  const cfg = {
    architectures: [{ llama: 'LlamaForCausalLM', qwen2: 'Qwen2ForCausalLM', qwen3: 'Qwen3ForCausalLM' }[arch as GgufArch]],
    vocab_size: vocabSize,
    hidden_size: dModel,
    intermediate_size: required(int('feed_forward_length'), key('feed_forward_length')),
    num_hidden_layers: required(int('block_count'), key('block_count')),
    num_attention_heads: nHeads,
    num_key_value_heads: int('attention.head_count_kv') ?? nHeads,
    head_dim: headDim,
    max_position_embeddings: int('context_length'),
    rms_norm_eps: required(metaNumber(meta, key('attention.layer_norm_rms_epsilon')), key('attention.layer_norm_rms_epsilon')),
    rope_theta: metaNumber(meta, key('rope.freq_base')) ?? 10000,
    tie_word_embeddings: !byName.has('output.weight'),
  };
  try {
    return parseHfConfig(cfg);
  } catch (e) {
    // Its messages speak of config.json keys; this file has GGUF keys.
    throw new GgufError('BAD_VALUE', `the model described by the "${arch}.*" keys is not usable: ${(e as Error).message}`);
  }
}

/** Bytes the float32 weights take once dequantised: what an import must hold in memory. */
export function ggufFloat32Bytes(file: Pick<GgufFile, 'tensors'>): number {
  return file.tensors.reduce((n, t) => n + 4 * t.shape.reduce((a, b) => a * b, 1), 0);
}

/** Dequantised float32 weights under their HF names (llama's q/k rows back in HF's half-split order). */
function hfWeights(file: GgufFile, shape: HfModelShape): Map<string, HostTensor> {
  const byName = new Map(file.tensors.map((t) => [t.name, t]));
  const pairs = ggufTensorNames(shape);
  const expected = new Set(pairs.map(([, g]) => g));
  const extra = file.tensors.find((t) => !expected.has(t.name));
  if (extra) throw new GgufError('BAD_TENSOR', `tensor "${extra.name}" is not part of the ${shape.nLayers}-layer model the metadata describes`);
  const arch = metaString(file.metadata, 'general.architecture');
  const out = new Map<string, HostTensor>();
  for (const [hfName, name] of pairs) {
    const t = byName.get(name);
    if (!t) throw new GgufError('BAD_TENSOR', `the file has no tensor "${name}"`);
    const count = t.shape.reduce((a, b) => a * b, 1);
    const raw = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    let data = dequantize(t.type, raw, count);
    const cols = t.shape.at(-1)!;
    if (arch === 'llama' && name.endsWith('.attn_q.weight')) data = permuteForInterleavedRope(data, shape.nHeads, shape.headDim, cols, true);
    if (arch === 'llama' && name.endsWith('.attn_k.weight')) data = permuteForInterleavedRope(data, shape.nKvHeads, shape.headDim, cols, true);
    out.set(hfName, { dtype: 'F32', shape: t.shape, data });
  }
  return out;
}

/**
 * Write `file` into `dir` as a Hugging Face model folder. Throws GgufError naming what is missing, malformed
 * or unsupported; the HF import then checks every weight's shape against config.json.
 */
export function ggufToHfFolder(file: GgufFile, dir: string): void {
  const shape = ggufModelShape(file);
  const tokenizer = hfTokenizerFromGguf(file.metadata, shape.maxSeqLen);
  if (tokenizer.json.model.vocab && Object.keys(tokenizer.json.model.vocab as object).length > shape.vocabSize) {
    throw new GgufError('BAD_VALUE', `tokenizer.ggml.tokens has more tokens than token_embd.weight's ${shape.vocabSize} rows`);
  }
  const ids = { bosTokenId: tokenizer.bosTokenId, eosTokenId: tokenizer.eosTokenId, padTokenId: tokenizer.padTokenId };
  // toHfConfig checks the shape once more before anything is written.
  toHfConfig(shape, ids);
  writeHfConfig(dir, shape, ids);
  writeTokenizerFiles(dir, tokenizer.json, tokenizer.config);
  writeSafetensors(join(dir, 'model.safetensors'), hfWeights(file, shape), { format: 'pt' });
}

// A Hugging Face-named Llama / Qwen2 / Qwen3 model → GGUF, laid out as llama.cpp's converter lays it out:
// its tensor names, its metadata keys, the byte-level BPE tokenizer as `tokenizer.ggml.*` (model "gpt2").
//
// One real transformation: llama.cpp's "llama" architecture applies RoPE to adjacent pairs (x[2j], x[2j+1]),
// while HF Llama rotates (x[j], x[j + D/2]). The rows of q_proj and k_proj are therefore reordered per head so
// that the same pairs meet (`permuteForInterleavedRope`). Qwen2 / Qwen3 use the half-split rotation in
// llama.cpp too, so their weights are copied as they are.

import { isDeepStrictEqual } from 'node:util';
import type { HostTensor } from './dtype';
import { bf16ToFloat32, f16ToFloat32, float32ToF16 } from './half';
import { type HfModelShape, architectureFor } from './hf-config';
import { checkHfWeights } from './hf-tensors';
import { describeProblems } from './tensor-spec';
import { SPLIT_PATTERN } from '../tokenizer/byte-level';
import { GgufError, type GgufFile, type GgufTensor, type GgufValue, gguf } from './gguf';
import { GGML_READ_TYPES, quantizeQ8_0 } from './gguf-quants';
import { PRE_TOKENIZERS } from './gguf-tokenizer';

/** What the exporter needs from a tokenizer: its tokenizer.json and special-token roles. */
export interface GgufTokenizerSource {
  json: { model: Record<string, unknown>; added_tokens: { id: number; content: string; special: boolean }[]; pre_tokenizer?: unknown };
  chatTemplate?: string;
  bosTokenId?: number;
  eosTokenId?: number;
  padTokenId?: number;
}

export interface GgufExportInput {
  shape: HfModelShape;
  /** HF names; F32 (F16 / BF16 are widened first). */
  weights: ReadonlyMap<string, HostTensor>;
  tokenizer: GgufTokenizerSource;
  name?: string;
  /** Storage of matrices (`tensorTypeFor`); norms and biases stay F32 as llama.cpp expects. Default F32. */
  dtype?: GgufExportDtype;
}

/** What a GGUF export stores its matrices as. */
export type GgufExportDtype = 'F32' | 'F16' | 'Q8_0';

/** general.file_type of each export dtype (llama.cpp's LLAMA_FTYPE_ALL_F32, MOSTLY_F16, MOSTLY_Q8_0). */
const FILE_TYPE: Record<GgufExportDtype, number> = { F32: 0, F16: 1, Q8_0: 7 };

/**
 * The type one tensor is stored as, by llama.cpp's converter's rule (convert_hf_to_gguf.py): 1-D tensors (norms,
 * biases) stay F32 whatever the dtype — they are tiny and llama.cpp's kernels take them as F32; matrices take the
 * dtype, except that a Q8_0 matrix whose rows are not whole 32-weight blocks falls back to F16, as the
 * converter does when gguf-py cannot quantise it (a block never straddles two rows in ggml).
 */
export function tensorTypeFor(shape: readonly number[], dtype: GgufExportDtype): 'F32' | 'F16' | 'Q8_0' {
  if (shape.length < 2 || dtype === 'F32') return 'F32';
  if (dtype === 'Q8_0' && shape.at(-1)! % GGML_READ_TYPES.Q8_0.blockSize !== 0) return 'F16';
  return dtype;
}

export const GGUF_ARCH = { LlamaForCausalLM: 'llama', Qwen2ForCausalLM: 'qwen2', Qwen3ForCausalLM: 'qwen3' } as const;

/** llama.cpp token types. */
const TOKEN_TYPE = { normal: 1, control: 3, userDefined: 4, unused: 5 } as const;

/**
 * Reorder the rows of a [nHeads * D, in] projection so that each head's rows j and j + D/2 become rows
 * 2j and 2j + 1: half-split RoPE pairs → interleaved RoPE pairs; `inverse` undoes it (a GGUF import).
 */
export function permuteForInterleavedRope(weight: Float32Array, nHeads: number, rowsPerHead: number, cols: number, inverse = false): Float32Array {
  if (rowsPerHead % 2 !== 0) throw new GgufError('BAD_TENSOR', `RoPE head dim ${rowsPerHead} is odd`);
  if (weight.length !== nHeads * rowsPerHead * cols) throw new GgufError('BAD_TENSOR', `projection has ${weight.length} values, expected ${nHeads * rowsPerHead * cols}`);
  const out = new Float32Array(weight.length);
  const half = rowsPerHead / 2;
  for (let h = 0; h < nHeads; h++) {
    for (let j = 0; j < half; j++) {
      for (let s = 0; s < 2; s++) {
        const split = (h * rowsPerHead + s * half + j) * cols;
        const interleaved = (h * rowsPerHead + 2 * j + s) * cols;
        const [from, to] = inverse ? [interleaved, split] : [split, interleaved];
        out.set(weight.subarray(from, from + cols), to);
      }
    }
  }
  return out;
}

function asFloat32(name: string, t: HostTensor): Float32Array {
  if (t.dtype === 'F32') return t.data as Float32Array;
  if (t.dtype === 'F16') return f16ToFloat32(t.data as Uint16Array);
  if (t.dtype === 'BF16') return bf16ToFloat32(t.data as Uint16Array);
  throw new GgufError('BAD_TENSOR', `tensor "${name}" is ${t.dtype}; GGUF export takes float weights`);
}

function preTokenizerName(preTokenizer: unknown): string {
  // An imported GGUF's tokenizer carries the pre-tokenizer its import wrote for the file's tokenizer.ggml.pre.
  const imported = Object.entries(PRE_TOKENIZERS).find(([, config]) => isDeepStrictEqual(config, preTokenizer));
  if (imported) return imported[0];
  type Pre = { type?: string; use_regex?: boolean; individual_digits?: boolean; pattern?: { Regex?: string } };
  const p = preTokenizer as (Pre & { pretokenizers?: Pre[] }) | null;
  if (p?.type === 'ByteLevel' && p.use_regex !== false) return 'gpt-2';
  const parts = p?.type === 'Sequence' ? (p.pretokenizers ?? []) : [];
  const split = parts.find((x) => x.type === 'Split');
  // Our own split pattern is Qwen2's, which llama.cpp knows as pre-tokenizer "qwen2".
  if (split?.pattern?.Regex === SPLIT_PATTERN) return 'qwen2';
  // Hugging Face's SmolLM / SmolLM2 tokenizer.json: every digit alone, then GPT-2's split: llama.cpp's "smollm".
  if (parts.length === 2 && parts[0].type === 'Digits' && parts[0].individual_digits === true && parts[1].type === 'ByteLevel' && parts[1].use_regex !== false) return 'smollm';
  throw new GgufError(
    'BAD_VALUE',
    `the tokenizer's pre-tokenizer has no llama.cpp equivalent known to this exporter (known: GPT-2 ByteLevel, the Qwen2 split, SmolLM's digits + ByteLevel, or a GGUF import's ${Object.keys(PRE_TOKENIZERS).join(', ')})`,
  );
}

function tokenizerMetadata(tok: GgufTokenizerSource, vocabSize: number): [string, GgufValue][] {
  const model = tok.json.model;
  if (model.type !== 'BPE') throw new GgufError('BAD_VALUE', `GGUF "gpt2" tokenizers are BPE; this one is ${String(model.type)}`);
  const tokens: string[] = new Array(vocabSize);
  const types: number[] = new Array(vocabSize).fill(TOKEN_TYPE.normal);
  for (const [token, id] of Object.entries(model.vocab as Record<string, number>)) {
    if (id >= vocabSize) throw new GgufError('BAD_VALUE', `token id ${id} does not fit the model's vocabulary of ${vocabSize}`);
    tokens[id] = token;
  }
  for (const t of tok.json.added_tokens) {
    if (t.id >= vocabSize) throw new GgufError('BAD_VALUE', `token id ${t.id} does not fit the model's vocabulary of ${vocabSize}`);
    tokens[t.id] = t.content;
    types[t.id] = t.special ? TOKEN_TYPE.control : TOKEN_TYPE.userDefined;
  }
  // Rows of a padded embedding that no token uses, named as llama.cpp's converter names them.
  for (let i = 0; i < vocabSize; i++) {
    if (tokens[i] === undefined) {
      tokens[i] = `[PAD${i}]`;
      types[i] = TOKEN_TYPE.unused;
    }
  }
  const merges = (model.merges as (string | [string, string])[]).map((m) => (Array.isArray(m) ? `${m[0]} ${m[1]}` : m));
  const meta: [string, GgufValue][] = [
    ['tokenizer.ggml.model', gguf.str('gpt2')],
    ['tokenizer.ggml.pre', gguf.str(preTokenizerName(tok.json.pre_tokenizer))],
    ['tokenizer.ggml.tokens', gguf.array('string', tokens)],
    ['tokenizer.ggml.token_type', gguf.array('i32', types)],
    ['tokenizer.ggml.merges', gguf.array('string', merges)],
  ];
  if (tok.bosTokenId !== undefined) meta.push(['tokenizer.ggml.bos_token_id', gguf.u32(tok.bosTokenId)]);
  if (tok.eosTokenId !== undefined) meta.push(['tokenizer.ggml.eos_token_id', gguf.u32(tok.eosTokenId)]);
  if (tok.padTokenId !== undefined) meta.push(['tokenizer.ggml.padding_token_id', gguf.u32(tok.padTokenId)]);
  meta.push(['tokenizer.ggml.add_bos_token', gguf.bool(false)]);
  if (tok.chatTemplate !== undefined) meta.push(['tokenizer.chat_template', gguf.str(tok.chatTemplate)]);
  return meta;
}

/** HF tensor name → GGUF tensor name for one model. */
export function ggufTensorNames(s: HfModelShape): [string, string][] {
  const pairs: [string, string][] = [['model.embed_tokens.weight', 'token_embd.weight']];
  for (let i = 0; i < s.nLayers; i++) {
    const hf = `model.layers.${i}`;
    const g = `blk.${i}`;
    pairs.push([`${hf}.input_layernorm.weight`, `${g}.attn_norm.weight`]);
    for (const [p, q] of [['q_proj', 'attn_q'], ['k_proj', 'attn_k'], ['v_proj', 'attn_v']]) {
      pairs.push([`${hf}.self_attn.${p}.weight`, `${g}.${q}.weight`]);
      if (s.qkvBias) pairs.push([`${hf}.self_attn.${p}.bias`, `${g}.${q}.bias`]);
    }
    if (s.qkNorm) {
      pairs.push([`${hf}.self_attn.q_norm.weight`, `${g}.attn_q_norm.weight`]);
      pairs.push([`${hf}.self_attn.k_norm.weight`, `${g}.attn_k_norm.weight`]);
    }
    pairs.push([`${hf}.self_attn.o_proj.weight`, `${g}.attn_output.weight`]);
    pairs.push([`${hf}.post_attention_layernorm.weight`, `${g}.ffn_norm.weight`]);
    for (const [p, q] of [['gate_proj', 'ffn_gate'], ['up_proj', 'ffn_up'], ['down_proj', 'ffn_down']]) pairs.push([`${hf}.mlp.${p}.weight`, `${g}.${q}.weight`]);
  }
  pairs.push(['model.norm.weight', 'output_norm.weight']);
  if (!s.tiedEmbeddings) pairs.push(['lm_head.weight', 'output.weight']);
  return pairs;
}

export function hfToGguf(input: GgufExportInput): Omit<GgufFile, 'version'> {
  const { shape: s, weights } = input;
  const problems = checkHfWeights(weights, s);
  if (problems.length > 0) throw new GgufError('BAD_TENSOR', `weights do not match the model: ${describeProblems(problems)}`);
  const arch = GGUF_ARCH[architectureFor(s)];
  const dtype = input.dtype ?? 'F32';
  if (!Object.hasOwn(FILE_TYPE, dtype)) throw new GgufError('BAD_VALUE', `GGUF export dtype must be one of ${Object.keys(FILE_TYPE).join(', ')}, got ${JSON.stringify(dtype)}`);
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', gguf.str(arch)],
    ['general.name', gguf.str(input.name ?? 'envace-model')],
    ['general.file_type', gguf.u32(FILE_TYPE[dtype])],
    [`${arch}.vocab_size`, gguf.u32(s.vocabSize)],
    [`${arch}.context_length`, gguf.u32(s.maxSeqLen)],
    [`${arch}.embedding_length`, gguf.u32(s.dModel)],
    [`${arch}.block_count`, gguf.u32(s.nLayers)],
    [`${arch}.feed_forward_length`, gguf.u32(s.dFf)],
    [`${arch}.attention.head_count`, gguf.u32(s.nHeads)],
    [`${arch}.attention.head_count_kv`, gguf.u32(s.nKvHeads)],
    [`${arch}.attention.key_length`, gguf.u32(s.headDim)],
    [`${arch}.attention.value_length`, gguf.u32(s.headDim)],
    [`${arch}.attention.layer_norm_rms_epsilon`, gguf.f32(s.normEps)],
    [`${arch}.rope.dimension_count`, gguf.u32(s.headDim)],
    [`${arch}.rope.freq_base`, gguf.f32(s.ropeTheta)],
    ...tokenizerMetadata(input.tokenizer, s.vocabSize),
  ]);

  const tensors: GgufTensor[] = ggufTensorNames(s).map(([hfName, name]) => {
    const t = weights.get(hfName)!;
    let data = asFloat32(hfName, t);
    if (arch === 'llama' && hfName.endsWith('self_attn.q_proj.weight')) data = permuteForInterleavedRope(data, s.nHeads, s.headDim, s.dModel);
    if (arch === 'llama' && hfName.endsWith('self_attn.k_proj.weight')) data = permuteForInterleavedRope(data, s.nKvHeads, s.headDim, s.dModel);
    const type = tensorTypeFor(t.shape, dtype);
    if (type === 'Q8_0') return { name, type, shape: t.shape, data: quantizeQ8_0(data) };
    if (type === 'F16') return { name, type, shape: t.shape, data: float32ToF16(data) };
    return { name, type, shape: t.shape, data };
  });
  return { metadata, tensors };
}

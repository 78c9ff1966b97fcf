// Hugging Face `config.json` ⇄ the shape of a Llama-family decoder we can run.
// Defaults for absent optional keys are the ones each transformers config class uses, so a config that
// transformers accepts means the same model here. Features our transformer does not implement (RoPE
// scaling, sliding windows, o_proj / MLP biases, other activations) are refused, not silently dropped.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonBoundsError } from './bounded-json';
import { FileBoundsError, type FileBoundsKind, readBoundedJsonFile } from './bounded-file';

export const SUPPORTED_ARCHITECTURES = ['LlamaForCausalLM', 'Qwen2ForCausalLM', 'Qwen3ForCausalLM'] as const;
export type HfArchitecture = (typeof SUPPORTED_ARCHITECTURES)[number];

const MODEL_TYPE: Record<HfArchitecture, string> = { LlamaForCausalLM: 'llama', Qwen2ForCausalLM: 'qwen2', Qwen3ForCausalLM: 'qwen3' };
const DEFAULT_MAX_POSITIONS: Record<HfArchitecture, number> = { LlamaForCausalLM: 2048, Qwen2ForCausalLM: 32768, Qwen3ForCausalLM: 32768 };
/** Qwen3's config class defaults head_dim to 128; the others derive it from hidden_size / heads. */
const DEFAULT_HEAD_DIM: Partial<Record<HfArchitecture, number>> = { Qwen3ForCausalLM: 128 };

/** Sizes and switches of a Llama-family decoder (B batch, T time, C = dModel, H heads, D headDim, V vocab). */
export interface HfModelShape {
  vocabSize: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  nKvHeads: number;
  dFf: number;
  ropeTheta: number;
  normEps: number;
  tiedEmbeddings: boolean;
  /** Bias on q/k/v projections only (Qwen2). */
  qkvBias: boolean;
  /** RMSNorm over each head of q and k before RoPE (Qwen3). */
  qkNorm: boolean;
  maxSeqLen: number;
  headDim: number;
}

export type HfConfigErrorCode = 'NOT_JSON' | 'MISSING_FILE' | 'UNREADABLE' | 'TOO_LARGE' | 'UNKNOWN_ARCHITECTURE' | 'MISSING_KEY' | 'BAD_VALUE' | 'UNSUPPORTED';

export class HfConfigError extends Error {
  override name = 'HfConfigError';
  constructor(
    readonly code: HfConfigErrorCode,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

/** config.json files are a few KB; anything near this is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
const MAX_CONFIG_DEPTH = 16;

/**
 * Largest size accepted for each config key: a few times the largest released Llama / Qwen model
 * (405B: 126 layers, width 16384, MLP 53248; vocabularies up to 262144; contexts up to 10M). Beyond
 * these a config describes no model this runtime could hold, and building its tensor list alone
 * would exhaust memory (1e6 layers took minutes and 4.5 GB before failing).
 */
export const HF_CONFIG_MAXIMA: Readonly<Record<string, number>> = {
  vocab_size: 1 << 20,
  hidden_size: 1 << 16,
  intermediate_size: 1 << 18,
  num_hidden_layers: 1024,
  num_attention_heads: 1024,
  num_key_value_heads: 1024,
  head_dim: 1024,
  max_position_embeddings: 1 << 24,
};

function positiveInt(cfg: Json, key: string, fallback?: number): number {
  const v = cfg[key] ?? fallback;
  if (v === undefined) throw new HfConfigError('MISSING_KEY', `config.json has no "${key}"`);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) {
    throw new HfConfigError('BAD_VALUE', `config.json "${key}" must be a positive integer, got ${JSON.stringify(v)}`);
  }
  const max = HF_CONFIG_MAXIMA[key];
  if (max !== undefined && v > max) throw new HfConfigError('BAD_VALUE', `config.json "${key}" is ${v}, over the maximum of ${max}`);
  return v;
}

function positiveNumber(cfg: Json, key: string, fallback: number): number {
  const v = cfg[key] ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new HfConfigError('BAD_VALUE', `config.json "${key}" must be a positive number, got ${JSON.stringify(v)}`);
  }
  return v;
}

function flag(cfg: Json, key: string, fallback: boolean): boolean {
  const v = cfg[key] ?? fallback;
  if (typeof v !== 'boolean') throw new HfConfigError('BAD_VALUE', `config.json "${key}" must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

function refuse(arch: HfArchitecture, what: string): never {
  throw new HfConfigError('UNSUPPORTED', `config.json: ${arch} with ${what} is not supported by this runtime`);
}

function architectureOf(cfg: Json): HfArchitecture {
  const list = cfg.architectures;
  if (list === undefined) throw new HfConfigError('MISSING_KEY', 'config.json has no "architectures"');
  if (!Array.isArray(list) || list.length !== 1 || typeof list[0] !== 'string') {
    throw new HfConfigError('BAD_VALUE', `config.json "architectures" must list exactly one class name, got ${JSON.stringify(list)}`);
  }
  const arch = list[0];
  if (!(SUPPORTED_ARCHITECTURES as readonly string[]).includes(arch)) {
    throw new HfConfigError('UNKNOWN_ARCHITECTURE', `config.json "architectures": architecture "${arch}" is not one of ${SUPPORTED_ARCHITECTURES.join(', ')}`);
  }
  return arch as HfArchitecture;
}

/** rope_theta moved into `rope_parameters` in newer transformers; accept either place. */
function ropeSettings(cfg: Json, arch: HfArchitecture): number {
  const params = cfg.rope_parameters;
  if (params !== undefined && params !== null) {
    if (typeof params !== 'object' || Array.isArray(params)) throw new HfConfigError('BAD_VALUE', 'config.json "rope_parameters" must be an object');
    const p = params as Json;
    if (p.rope_type !== undefined && p.rope_type !== 'default') refuse(arch, `rope_type "${String(p.rope_type)}"`);
    if (p.rope_theta !== undefined) return positiveNumber(p, 'rope_theta', 10000);
  }
  const scaling = cfg.rope_scaling;
  if (scaling !== undefined && scaling !== null) {
    const type = (scaling as Json).rope_type ?? (scaling as Json).type;
    if (type !== 'default') refuse(arch, `rope_scaling ${JSON.stringify(scaling)}`);
  }
  return positiveNumber(cfg, 'rope_theta', 10000);
}

/** Parse an HF config object (already JSON-decoded) into the model shape. */
export function parseHfConfig(cfg: unknown): HfModelShape {
  if (cfg === null || typeof cfg !== 'object' || Array.isArray(cfg)) throw new HfConfigError('BAD_VALUE', 'config.json is not a JSON object');
  const c = cfg as Json;
  const arch = architectureOf(c);
  const act = c.hidden_act ?? 'silu';
  if (act !== 'silu') refuse(arch, `hidden_act "${String(act)}"`);
  if (flag(c, 'attention_bias', false)) refuse(arch, 'attention_bias (bias on every attention projection, o_proj included)');
  if (flag(c, 'mlp_bias', false)) refuse(arch, 'mlp_bias');
  if (flag(c, 'use_sliding_window', false)) refuse(arch, 'use_sliding_window');

  const dModel = positiveInt(c, 'hidden_size');
  const nHeads = positiveInt(c, 'num_attention_heads');
  const nKvHeads = positiveInt(c, 'num_key_value_heads', nHeads);
  if (nHeads % nKvHeads !== 0) {
    throw new HfConfigError('BAD_VALUE', `config.json: num_attention_heads (${nHeads}) is not a multiple of num_key_value_heads (${nKvHeads})`);
  }
  const derivedHeadDim = DEFAULT_HEAD_DIM[arch] ?? dModel / nHeads;
  if ((c.head_dim ?? undefined) === undefined && !Number.isInteger(derivedHeadDim)) {
    throw new HfConfigError('BAD_VALUE', `config.json: hidden_size (${dModel}) is not divisible by num_attention_heads (${nHeads}) and no head_dim is given`);
  }
  return {
    vocabSize: positiveInt(c, 'vocab_size'),
    dModel,
    nLayers: positiveInt(c, 'num_hidden_layers'),
    nHeads,
    nKvHeads,
    dFf: positiveInt(c, 'intermediate_size'),
    ropeTheta: ropeSettings(c, arch),
    normEps: positiveNumber(c, 'rms_norm_eps', 1e-6),
    tiedEmbeddings: flag(c, 'tie_word_embeddings', false),
    qkvBias: arch === 'Qwen2ForCausalLM',
    qkNorm: arch === 'Qwen3ForCausalLM',
    maxSeqLen: positiveInt(c, 'max_position_embeddings', DEFAULT_MAX_POSITIONS[arch]),
    headDim: positiveInt(c, 'head_dim', derivedHeadDim),
  };
}

const FILE_ERROR_CODES: Record<FileBoundsKind, HfConfigErrorCode> = { missing: 'MISSING_FILE', too_large: 'TOO_LARGE', not_file: 'UNREADABLE', unreadable: 'UNREADABLE' };

/** Read and parse `<dir>/config.json`, bounded in size and nesting before parsing. */
export function readHfConfig(dir: string): HfModelShape {
  const path = join(dir, 'config.json');
  let json: unknown;
  try {
    json = readBoundedJsonFile(path, { maxBytes: MAX_CONFIG_BYTES, maxDepth: MAX_CONFIG_DEPTH }, path);
  } catch (e) {
    if (e instanceof FileBoundsError) throw new HfConfigError(FILE_ERROR_CODES[e.kind], e.message);
    if (e instanceof JsonBoundsError) throw new HfConfigError(e.kind === 'malformed' ? 'NOT_JSON' : 'TOO_LARGE', e.message);
    throw e;
  }
  return parseHfConfig(json);
}

/** The one HF class that has exactly these switches. */
export function architectureFor(shape: HfModelShape): HfArchitecture {
  if (shape.qkvBias && shape.qkNorm) {
    throw new HfConfigError('UNSUPPORTED', 'no Hugging Face architecture has both q/k/v bias and q/k norm');
  }
  return shape.qkvBias ? 'Qwen2ForCausalLM' : shape.qkNorm ? 'Qwen3ForCausalLM' : 'LlamaForCausalLM';
}

export interface HfTokenIds {
  bosTokenId?: number;
  eosTokenId?: number | number[];
  padTokenId?: number;
}

export interface HfExportOptions extends HfTokenIds {
  /** The dtype the weights are stored in. */
  torchDtype?: 'float32' | 'float16' | 'bfloat16';
}

function checkShape(shape: HfModelShape): void {
  for (const key of ['vocabSize', 'dModel', 'nLayers', 'nHeads', 'nKvHeads', 'dFf', 'maxSeqLen', 'headDim'] as const) {
    if (!Number.isSafeInteger(shape[key]) || shape[key] <= 0) {
      throw new HfConfigError('BAD_VALUE', `${key} must be a positive integer, got ${JSON.stringify(shape[key])}`);
    }
  }
  if (shape.nHeads % shape.nKvHeads !== 0) throw new HfConfigError('BAD_VALUE', `nHeads (${shape.nHeads}) is not a multiple of nKvHeads (${shape.nKvHeads})`);
  for (const key of ['ropeTheta', 'normEps'] as const) {
    if (!Number.isFinite(shape[key]) || shape[key] <= 0) throw new HfConfigError('BAD_VALUE', `${key} must be a positive number`);
  }
}

/** A config.json object that transformers loads as the same model. */
export function toHfConfig(shape: HfModelShape, opts: HfExportOptions = {}): Json {
  checkShape(shape);
  const arch = architectureFor(shape);
  const cfg: Json = {
    architectures: [arch],
    model_type: MODEL_TYPE[arch],
    vocab_size: shape.vocabSize,
    hidden_size: shape.dModel,
    intermediate_size: shape.dFf,
    num_hidden_layers: shape.nLayers,
    num_attention_heads: shape.nHeads,
    num_key_value_heads: shape.nKvHeads,
    head_dim: shape.headDim,
    hidden_act: 'silu',
    max_position_embeddings: shape.maxSeqLen,
    rms_norm_eps: shape.normEps,
    rope_theta: shape.ropeTheta,
    rope_scaling: null,
    tie_word_embeddings: shape.tiedEmbeddings,
    attention_bias: false,
    attention_dropout: 0,
    initializer_range: 0.02,
    use_cache: true,
    torch_dtype: opts.torchDtype ?? 'float32',
  };
  if (arch === 'LlamaForCausalLM') cfg.mlp_bias = false;
  else cfg.use_sliding_window = false;
  if (opts.bosTokenId !== undefined) cfg.bos_token_id = opts.bosTokenId;
  if (opts.eosTokenId !== undefined) cfg.eos_token_id = opts.eosTokenId;
  if (opts.padTokenId !== undefined) cfg.pad_token_id = opts.padTokenId;
  return cfg;
}

export interface GenerationDefaults extends HfTokenIds {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxNewTokens?: number;
}

export function toGenerationConfig(g: GenerationDefaults): Json {
  const cfg: Json = {};
  if (g.bosTokenId !== undefined) cfg.bos_token_id = g.bosTokenId;
  if (g.eosTokenId !== undefined) cfg.eos_token_id = g.eosTokenId;
  if (g.padTokenId !== undefined) cfg.pad_token_id = g.padTokenId;
  const sampling = g.temperature !== undefined || g.topP !== undefined || g.topK !== undefined;
  if (sampling) cfg.do_sample = true;
  if (g.temperature !== undefined) cfg.temperature = g.temperature;
  if (g.topP !== undefined) cfg.top_p = g.topP;
  if (g.topK !== undefined) cfg.top_k = g.topK;
  if (g.maxNewTokens !== undefined) cfg.max_new_tokens = g.maxNewTokens;
  return cfg;
}

/** Write `config.json` and `generation_config.json` into `dir` (an export's temp folder). */
export function writeHfConfig(dir: string, shape: HfModelShape, opts: HfExportOptions & GenerationDefaults = {}): void {
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify(toHfConfig(shape, opts), null, 2)}\n`);
  writeFileSync(join(dir, 'generation_config.json'), `${JSON.stringify(toGenerationConfig(opts), null, 2)}\n`);
}

// A complete, valid Hugging Face model folder small enough to write thousands of variants of:
// config.json, model.safetensors, tokenizer.json and tokenizer_config.json, as objects and bytes
// that tests mutate before writing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HfModelShape, toHfConfig } from '../../../../native-models/io/hf-config';
import { expectedHfTensors } from '../../../../native-models/io/hf-tensors';
import { encodeSafetensors } from '../../../../native-models/io/safetensors';
import { trainTokenizer } from '../../../../native-models/tokenizer/text-tokenizer';

export interface TinyFolder {
  config: Record<string, unknown>;
  weights: Uint8Array;
  tokenizer: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
}

let cached: TinyFolder | undefined;

/** The valid folder (build once; callers clone what they mutate). */
export function tinyFolder(): TinyFolder {
  if (cached) return cached;
  const tok = trainTokenizer(['<|user|>hello there<|end|>', '<|act|>hello back<|end|>'], { vocabSize: 270 });
  const shape: HfModelShape = {
    vocabSize: tok.vocabSize,
    dModel: 8,
    nLayers: 1,
    nHeads: 2,
    nKvHeads: 1,
    dFf: 16,
    ropeTheta: 10000,
    normEps: 1e-6,
    tiedEmbeddings: true,
    qkvBias: false,
    qkNorm: false,
    maxSeqLen: 64,
    headDim: 4,
  };
  let s = 7;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5);
  const tensors = new Map(
    expectedHfTensors(shape).map((t) => [t.name, { dtype: 'F32' as const, shape: t.shape, data: Float32Array.from({ length: t.shape.reduce((a, b) => a * b, 1) }, next) }]),
  );
  cached = { config: toHfConfig(shape), weights: encodeSafetensors(tensors), tokenizer: tok.json, tokenizerConfig: tok.config };
  return cached;
}

export interface FolderFiles {
  'config.json'?: string | Uint8Array;
  'model.safetensors'?: string | Uint8Array;
  'tokenizer.json'?: string | Uint8Array;
  'tokenizer_config.json'?: string | Uint8Array;
}

/** Write the tiny folder into `dir`, with any file replaced by `files`. */
export function writeTinyFolder(dir: string, files: FolderFiles = {}): string {
  const f = tinyFolder();
  mkdirSync(dir, { recursive: true });
  const all: Required<FolderFiles> = {
    'config.json': JSON.stringify(f.config),
    'model.safetensors': f.weights,
    'tokenizer.json': JSON.stringify(f.tokenizer),
    'tokenizer_config.json': JSON.stringify(f.tokenizerConfig),
    ...files,
  };
  for (const [name, body] of Object.entries(all)) writeFileSync(join(dir, name), body);
  return dir;
}

/** A safetensors file from a header object and a data section, with the length prefix given or true. */
export function safetensorsBytes(header: unknown, data: Uint8Array, lengthPrefix?: bigint): Uint8Array {
  const text = new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, lengthPrefix ?? BigInt(text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

/** Header object and data section of the tiny folder's weights. */
export function splitSafetensors(bytes: Uint8Array): { header: Record<string, unknown>; data: Uint8Array } {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, unknown>;
  return { header, data: bytes.subarray(8 + n) };
}

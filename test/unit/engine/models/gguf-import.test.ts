// GGUF import on small files our exporter writes (the same names and keys llama.cpp's converter uses), some
// tensors replaced by random quantised blocks: the imported HF weights must be the exporter's input exactly
// (F32 tensors, llama's RoPE row permutation undone) or the dequantised blocks (quantised ones), the tokenizer
// must tokenize as the original, and every malformed or unsupported file must fail with an error naming why.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hfWeightsFromParams, importGgufModel, loadModel, ModelRegistryError } from '../../../../electron/engine/models';
import type { HostTensor } from '../../../../native-models/io/dtype';
import { encodeGguf, type GgufFile, gguf } from '../../../../native-models/io/gguf';
import { ggufTensorNames, hfToGguf, permuteForInterleavedRope } from '../../../../native-models/io/gguf-export';
import { dequantize, ggmlByteSize } from '../../../../native-models/io/gguf-quants';
import { numberToF16Bits } from '../../../../native-models/io/half';
import type { HfModelShape } from '../../../../native-models/io/hf-config';
import { expectedHfTensors } from '../../../../native-models/io/hf-tensors';
import { trainTokenizer } from '../../../../native-models/tokenizer/text-tokenizer';
import { lastJson, runEnvace } from '../../../helpers/cli';
import { tempDirs } from './fixtures';

const tmp = tempDirs();
afterAll(tmp.cleanup);

const CORPUS = ['order #W1 delivered to rome', 'order #W2 cancelled', 'hello there, order 42 delivered'];
const tokenizer = trainTokenizer(CORPUS, { vocabSize: 300 });

const base: HfModelShape = {
  vocabSize: tokenizer.vocabSize + 4,
  dModel: 32,
  nLayers: 2,
  nHeads: 2,
  nKvHeads: 1,
  dFf: 64,
  ropeTheta: 10000,
  normEps: 1e-5,
  tiedEmbeddings: false,
  qkvBias: false,
  qkNorm: false,
  maxSeqLen: 64,
  headDim: 16,
};
const SHAPES: Record<string, HfModelShape> = {
  llama: base,
  qwen2: { ...base, qkvBias: true, tiedEmbeddings: true },
  qwen3: { ...base, qkNorm: true, headDim: 8 },
};

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function randomWeights(shape: HfModelShape, seed: number): Map<string, HostTensor> {
  const r = rng(seed);
  return new Map(expectedHfTensors(shape).map((t) => [t.name, { dtype: 'F32' as const, shape: t.shape, data: Float32Array.from({ length: t.shape.reduce((a, b) => a * b, 1) }, () => r() - 0.5) }]));
}

/** Random Q8_0 blocks (finite f16 scales) for `count` weights. */
function randomQ8(count: number, seed: number): Uint8Array {
  const r = rng(seed);
  const bytes = Uint8Array.from({ length: ggmlByteSize('Q8_0', count) }, () => Math.floor(r() * 256));
  const v = new DataView(bytes.buffer);
  for (let at = 0; at < bytes.length; at += 34) v.setUint16(at, numberToF16Bits(r() * 0.1), true);
  return bytes;
}

const QUANTISED = ['blk.0.attn_q.weight', 'blk.1.ffn_down.weight'];

function ggufOf(shape: HfModelShape, weights: Map<string, HostTensor>): Omit<GgufFile, 'version'> {
  const file = hfToGguf({ shape, weights, tokenizer: { json: tokenizer.json, chatTemplate: tokenizer.chatTemplate, eosTokenId: tokenizer.eosTokenId, padTokenId: tokenizer.padTokenId } });
  file.tensors = file.tensors.map((t, i) => (QUANTISED.includes(t.name) ? { ...t, type: 'Q8_0', data: randomQ8(t.data.length, i) } : t));
  return file;
}

function writeFile(file: Omit<GgufFile, 'version'>, name = 'm.gguf'): string {
  const path = join(tmp.make(), name);
  writeFileSync(path, encodeGguf(file));
  return path;
}

async function importError(path: string, opts: { maxBytes?: number } = {}): Promise<ModelRegistryError> {
  const e = await importGgufModel({ ggufFile: path, modelsDir: tmp.make(), ...opts }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ModelRegistryError);
  return e as ModelRegistryError;
}

describe('GGUF import', () => {
  it.each(Object.keys(SHAPES))('%s: weights come back exactly, quantised tensors dequantised, the tokenizer unchanged', async (arch) => {
    const shape = SHAPES[arch];
    const weights = randomWeights(shape, 11);
    const file = ggufOf(shape, weights);
    const modelsDir = tmp.make();
    const entry = await importGgufModel({ ggufFile: writeFile(file, `tiny-${arch}.gguf`), modelsDir });
    expect(entry.name).toBe(`tiny-${arch}`);
    expect(entry.source.endsWith(`tiny-${arch}.gguf`)).toBe(true);
    const loaded = loadModel(modelsDir, entry.name);
    expect(loaded.shape).toEqual(shape);
    const back = hfWeightsFromParams(loaded.config, loaded.weights);
    const ggufName = new Map(ggufTensorNames(shape));
    for (const [name, t] of weights) {
      if (shape.tiedEmbeddings && name === 'lm_head.weight') continue;
      const ours = back.get(name)!.data as Float32Array;
      const stored = file.tensors.find((g) => g.name === ggufName.get(name))!;
      if (stored.type !== 'Q8_0') {
        expect(ours, name).toEqual(t.data);
        continue;
      }
      let expected = dequantize('Q8_0', stored.data as Uint8Array, t.data.length);
      if (arch === 'llama' && name.endsWith('q_proj.weight')) expected = permuteForInterleavedRope(expected, shape.nHeads, shape.headDim, shape.dModel, true);
      expect(ours, name).toEqual(expected);
    }
    for (const text of [...CORPUS, '<|user|>order #W9<|end|>']) expect(loaded.tokenizer.encode(text)).toEqual(tokenizer.encode(text));
    expect(loaded.tokenizer.chatTemplate).toBe(tokenizer.chatTemplate);
    expect(loaded.tokenizer.eosTokenId).toBe(tokenizer.eosTokenId);
  });

  it('refuses truncated files, data past the end, unsupported types, architectures and tokenizers, naming each', async () => {
    const good = encodeGguf(ggufOf(base, randomWeights(base, 3)));
    const at = (bytes: Uint8Array, name: string) => {
      const path = join(tmp.make(), name);
      writeFileSync(path, bytes);
      return path;
    };
    expect((await importError(at(good.subarray(0, 200), 'head.gguf'))).message).toMatch(/file ends inside/);
    expect((await importError(at(good.subarray(0, good.length - 64), 'tail.gguf'))).message).toMatch(/tensor "output\.weight" data .* runs past the end of the file/);

    // The type field of blk.0.attn_q.weight's tensor info (after its name, 2 dims and their u64s) set to Q3_K.
    const nameAt = Buffer.from(good).indexOf('blk.0.attn_q.weight');
    const typeAt = nameAt + 'blk.0.attn_q.weight'.length + 4 + 16;
    const q3k = good.slice();
    new DataView(q3k.buffer).setUint32(typeAt, 11, true);
    const e = await importError(at(q3k, 'q3k.gguf'));
    expect(e.code).toBe('INVALID');
    expect(e.message).toMatch(/tensor "blk\.0\.attn_q\.weight" is Q3_K \(ggml type 11\)/);

    const withMeta = (key: string, value: ReturnType<typeof gguf.str>) => {
      const file = ggufOf(base, randomWeights(base, 3));
      file.metadata.set(key, value);
      return writeFile(file);
    };
    expect((await importError(withMeta('general.architecture', gguf.str('gemma2')))).message).toMatch(/architecture "gemma2" is not supported/);
    expect((await importError(withMeta('tokenizer.ggml.model', gguf.str('bert')))).message).toMatch(/tokenizer\.ggml\.model "bert" is not supported/);
    expect((await importError(withMeta('tokenizer.ggml.model', gguf.str('llama')))).message).toMatch(/needs "tokenizer\.ggml\.scores"/);
    expect((await importError(withMeta('tokenizer.ggml.pre', gguf.str('deepseek-llm')))).message).toMatch(/tokenizer\.ggml\.pre "deepseek-llm" is not supported/);
    expect((await importError(withMeta('llama.rope.scaling.type', gguf.str('yarn')))).message).toMatch(/"yarn" \(RoPE scaling\)/);
    expect((await importError(withMeta('llama.block_count', gguf.u32(3)))).message).toMatch(/no tensor "blk\.2\.attn_norm\.weight"/);

    // Within the limit as a file, over it once the Q8_0 tensors (34 bytes per 32 weights) are float32.
    const quantised = writeFile(ggufOf(base, randomWeights(base, 3)));
    const small = await importError(quantised, { maxBytes: readFileSync(quantised).length });
    expect(small.code).toBe('TOO_LARGE');
    expect(small.message).toMatch(/once dequantised to float32/);
  });

  it('envace import --gguf FILE --name N imports it; --hf with --gguf is a usage error', async () => {
    const home = tmp.make();
    const path = writeFile(ggufOf(base, randomWeights(base, 5)));
    const ok = await runEnvace(home, 'import', '--gguf', path, '--name', 'tiny-gguf', '--json');
    expect(ok.code, ok.stderr).toBe(0);
    expect(lastJson(ok.stdout)).toMatchObject({ model: 'tiny-gguf', architecture: 'LlamaForCausalLM', nLayers: 2, dModel: 32 });
    const listed = await runEnvace(home, 'models', '--json');
    expect(lastJson(listed.stdout).items.map((m: { name: string }) => m.name)).toEqual(['tiny-gguf']);
    const both = await runEnvace(home, 'import', '--gguf', path, '--hf', home);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/exactly one of --hf DIR or --gguf FILE/);
    const broken = join(tmp.make(), 'broken.gguf');
    writeFileSync(broken, readFileSync(path).subarray(0, 300));
    const bad = await runEnvace(home, 'import', '--gguf', broken);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/broken\.gguf is not a usable model: file ends inside/);
  });
});

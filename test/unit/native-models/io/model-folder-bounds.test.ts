// Model-folder inputs are bounded before they are parsed or allocated for: config sizes against maxima
// and against the weight files, safetensors headers against the file, tokenizer ids dense and small.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBoundsError, checkBoundedFile, readBoundedFile } from '../../../../native-models/io/bounded-file';
import { HF_CONFIG_MAXIMA, HfConfigError, type HfModelShape, parseHfConfig, readHfConfig } from '../../../../native-models/io/hf-config';
import { decodeGguf } from '../../../../native-models/io/gguf';
import { importHfModel } from '../../../../native-models/io/hf-folder';
import { expectedHfTensors, hfParameterCount } from '../../../../native-models/io/hf-tensors';
import { MAX_HEADER_BYTES, MAX_RANK, SafetensorsError, decodeSafetensors, readSafetensors } from '../../../../native-models/io/safetensors';
import { hfWeightFiles } from '../../../../native-models/io/sharded';
import { TokenizerError } from '../../../../native-models/tokenizer/tokenizer-files';
import { loadTokenizer, tokenizerFromJson } from '../../../../native-models/tokenizer/text-tokenizer';
import { safetensorsBytes, splitSafetensors, tinyFolder, writeTinyFolder } from './tiny-model-folder';

const root = mkdtempSync(join(tmpdir(), 'model-bounds-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `f${n++}`);

/** The error `fn` throws and how long it took to throw it. */
function timed(fn: () => unknown): { error: Error; ms: number } {
  const t0 = performance.now();
  try {
    fn();
  } catch (error) {
    return { error: error as Error, ms: performance.now() - t0 };
  }
  throw new Error('expected an error');
}

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
const onPosix = process.platform !== 'win32';

describe('config.json bounds', () => {
  it('refuses num_hidden_layers 1e6 at once, naming the field (took minutes and 4.5 GB before)', () => {
    const dir = writeTinyFolder(fresh(), { 'config.json': JSON.stringify({ ...tinyFolder().config, num_hidden_layers: 1e6 }) });
    const { error, ms } = timed(() => importHfModel(dir));
    expect(error).toBeInstanceOf(HfConfigError);
    expect(error.message).toMatch(/config\.json "num_hidden_layers" is 1000000, over the maximum of 1024/);
    expect(ms).toBeLessThan(1000);
  });

  it.each(Object.entries(HF_CONFIG_MAXIMA))('refuses %s above its maximum %i', (key, max) => {
    const shapeKeys = { ...tinyFolder().config, [key]: max + 1 };
    expect(() => parseHfConfig(shapeKeys)).toThrow(new RegExp(`"${key}" is ${max + 1}, over the maximum`));
  });

  it('refuses a config that claims more parameters than the weight files hold, before reading them', () => {
    // Within every maximum, but 64 layers of width 4096 is ~13 G parameters against a 10 KB file.
    const config = { ...tinyFolder().config, num_hidden_layers: 64, hidden_size: 4096, intermediate_size: 11008, num_attention_heads: 32, num_key_value_heads: 32, head_dim: 128 };
    const dir = writeTinyFolder(fresh(), { 'config.json': JSON.stringify(config) });
    const { error, ms } = timed(() => importHfModel(dir));
    expect(error).toBeInstanceOf(HfConfigError);
    expect(error.message).toMatch(/config\.json describes \d+ parameters \(num_hidden_layers 64, hidden_size 4096.*but the weight files hold \d+/);
    expect(ms).toBeLessThan(1000);
  });

  it('refuses an oversized or deeply nested config.json before parsing it', () => {
    const big = writeTinyFolder(fresh(), { 'config.json': `{"pad": "${'x'.repeat(1024 * 1024)}"}` });
    expect(() => readHfConfig(big)).toThrow(expect.objectContaining({ code: 'TOO_LARGE', message: expect.stringMatching(/config\.json is \d+ bytes, over the 1048576-byte limit/) }));
    const deep = writeTinyFolder(fresh(), { 'config.json': '['.repeat(100_000) + ']'.repeat(100_000) });
    expect(() => readHfConfig(deep)).toThrow(expect.objectContaining({ code: 'TOO_LARGE', message: expect.stringMatching(/config\.json nests deeper than 16 levels/) }));
  });

  it('accepts a config.json with a byte-order mark', () => {
    const dir = writeTinyFolder(fresh(), { 'config.json': `\uFEFF${JSON.stringify(tinyFolder().config)}` });
    expect(readHfConfig(dir).nLayers).toBe(1);
  });

  it.runIf(onPosix)('refuses a FIFO as config.json without blocking', () => {
    const dir = writeTinyFolder(fresh());
    rmSync(join(dir, 'config.json'));
    mkfifo(join(dir, 'config.json'));
    expect(() => readHfConfig(dir)).toThrow(expect.objectContaining({ code: 'UNREADABLE', message: expect.stringMatching(/not a regular file/) }));
  });

  it('counts parameters by arithmetic, as the tensor list does', () => {
    const base = { vocabSize: 300, dModel: 16, nLayers: 3, nHeads: 4, nKvHeads: 2, dFf: 40, ropeTheta: 1e4, normEps: 1e-6, maxSeqLen: 64, headDim: 4 };
    for (const v of [
      { tiedEmbeddings: true, qkvBias: false, qkNorm: false },
      { tiedEmbeddings: false, qkvBias: true, qkNorm: false },
      { tiedEmbeddings: false, qkvBias: false, qkNorm: true, headDim: 8 },
    ]) {
      const shape: HfModelShape = { ...base, ...v };
      expect(hfParameterCount(shape)).toBe(expectedHfTensors(shape).reduce((k, t) => k + t.shape.reduce((a, b) => a * b, 1), 0));
    }
  });
});

describe('safetensors header bounds', () => {
  it('refuses a header length of 80 MB in a 1 KB file before reading it', () => {
    const bytes = new Uint8Array(1024);
    new DataView(bytes.buffer).setBigUint64(0, 80n * 1024n * 1024n, true);
    const path = join(root, 'lying-length.safetensors');
    writeFileSync(path, bytes);
    const { error, ms } = timed(() => readSafetensors(path));
    expect(error).toMatchObject({ code: 'HEADER_LENGTH_OUT_OF_RANGE' });
    expect(error.message).toContain(path);
    expect(ms).toBeLessThan(100);
  });

  it(`refuses a header over ${MAX_HEADER_BYTES} bytes in a file that large, without reading it (82 MB took 34 s before)`, () => {
    const path = join(root, 'sparse.safetensors');
    const prefix = new Uint8Array(8);
    new DataView(prefix.buffer).setBigUint64(0, BigInt(MAX_HEADER_BYTES + 1), true);
    writeFileSync(path, prefix);
    truncateSync(path, 8 + MAX_HEADER_BYTES + 64); // sparse: no real bytes behind it
    const { error, ms } = timed(() => readSafetensors(path));
    expect(error).toMatchObject({ code: 'HEADER_TOO_LARGE' });
    expect(ms).toBeLessThan(200);
  });

  it('refuses shapes whose product is larger than the file, deep headers and absurd ranks', () => {
    const { header, data } = splitSafetensors(tinyFolder().weights);
    const [name, entry] = Object.entries(header).find(([k]) => k !== '__metadata__')!;
    const withEntry = (e: unknown) => safetensorsBytes({ ...header, [name]: e }, data);
    const codeOf = (bytes: Uint8Array, field = name) => {
      try {
        decodeSafetensors(bytes);
      } catch (e) {
        expect(e).toBeInstanceOf(SafetensorsError);
        expect((e as Error).message).toContain(field);
        return (e as SafetensorsError).code;
      }
      return 'ok';
    };
    const e = entry as { dtype: string; shape: number[]; data_offsets: number[] };
    expect(codeOf(withEntry({ ...e, shape: [2 ** 20, 2 ** 20] }))).toBe('SIZE_MISMATCH');
    expect(codeOf(withEntry({ ...e, shape: [2 ** 53, 2] }))).toBe('BAD_SHAPE');
    expect(codeOf(withEntry({ ...e, shape: Array(MAX_RANK + 1).fill(1) }))).toBe('BAD_SHAPE');
    expect(codeOf(withEntry({ ...e, data_offsets: [0, 2 ** 60] }))).toBe('HEADER_INVALID');
    expect(codeOf(withEntry({ ...e, dtype: 'F33' }))).toBe('UNKNOWN_DTYPE');
    expect(codeOf(safetensorsBytes(`{"a": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`, data), 'header nests deeper')).toBe('HEADER_INVALID');
  });

  it('refuses a shard index over 16 MiB by its size, before parsing it', () => {
    const dir = writeTinyFolder(fresh());
    writeFileSync(join(dir, 'model.safetensors.index.json'), `{"metadata": {"pad": "${'x'.repeat(16 * 1024 * 1024)}"}, "weight_map": {}}`);
    const { error, ms } = timed(() => hfWeightFiles(dir));
    expect(error).toMatchObject({ code: 'BAD_INDEX', message: expect.stringMatching(/model\.safetensors\.index\.json: the index is \d+ bytes, over the 16777216-byte limit/) });
    expect(ms).toBeLessThan(200);
  });

  it.runIf(onPosix)('refuses a FIFO named model.safetensors without blocking', () => {
    const path = join(root, 'fifo.safetensors');
    mkfifo(path);
    expect(() => readSafetensors(path)).toThrow(/not a regular file/);
  });
});

describe('tokenizer ids', () => {
  const tokenizerWith = (mutate: (t: Record<string, unknown>) => void) => {
    const t = structuredClone(tinyFolder().tokenizer);
    mutate(t);
    return t;
  };
  const added = (t: Record<string, unknown>) => t.added_tokens as Array<Record<string, unknown>>;
  const vocabSize = () => Object.keys((tinyFolder().tokenizer.model as { vocab: object }).vocab).length;

  it('refuses an added-token id of 1e9 at once (96 s before)', () => {
    const dir = writeTinyFolder(fresh(), { 'tokenizer.json': JSON.stringify(tokenizerWith((t) => added(t).push({ ...added(t)[0], id: 1e9, content: '<|big|>' }))) });
    const { error, ms } = timed(() => loadTokenizer(dir));
    expect(error).toBeInstanceOf(TokenizerError);
    expect(error.message).toMatch(/tokenizer\.json: "added_tokens" id 1000000000 is over the limit/);
    expect(ms).toBeLessThan(500);
  });

  it.each([
    ['-1', -1, /needs a non-negative integer "id"/],
    ['2**32', 2 ** 32, /"added_tokens" id 4294967296 is over the limit/],
    ['1.5', 1.5, /needs a non-negative integer "id"/],
    ['"5"', '5', /needs a non-negative integer "id"/],
  ])('refuses added-token id %s at import', (_label, id, message) => {
    const dir = writeTinyFolder(fresh(), { 'tokenizer.json': JSON.stringify(tokenizerWith((t) => added(t).push({ ...added(t)[0], id, content: '<|x|>' }))) });
    expect(() => loadTokenizer(dir)).toThrow(message);
  });

  it('refuses duplicate added ids, vocabulary ids out of range and gaps in the vocabulary', () => {
    const dup = tokenizerWith((t) => added(t).push({ ...added(t)[1], content: '<|dup|>' }));
    expect(() => tokenizerFromJson(dup)).toThrow(/"added_tokens" has the id 1 more than once/);
    for (const id of [-1, 2 ** 32, 0.5]) {
      const bad = tokenizerWith((t) => ((t.model as { vocab: Record<string, unknown> }).vocab['zz'] = id));
      expect(() => tokenizerFromJson(bad)).toThrow(/"model\.vocab" gives "zz" the id/);
    }
    const gap = tokenizerWith((t) => ((t.model as { vocab: Record<string, unknown> }).vocab['zz'] = vocabSize() + 10));
    expect(() => tokenizerFromJson(gap)).toThrow(/ids are not dense/);
  });

  it('accepts added tokens above the vocabulary with a gap (new tokens after padded embedding rows)', () => {
    const t = tokenizerWith((x) => added(x).push({ ...added(x)[0], id: vocabSize() + 50, content: '<|new|>' }));
    expect(tokenizerFromJson(t).vocabSize).toBe(vocabSize() + 51);
  });

  it('refuses tokenizer_config.json added_tokens_decoder keys that are not ids of the tokenizer', () => {
    for (const key of ['4294967296', '-1', '1.5', 'abc', String(vocabSize() + 3)]) {
      const config = { ...tinyFolder().tokenizerConfig, added_tokens_decoder: { [key]: { content: '<|x|>' } } };
      const dir = writeTinyFolder(fresh(), { 'tokenizer_config.json': JSON.stringify(config) });
      expect(() => loadTokenizer(dir)).toThrow(/tokenizer_config\.json: "added_tokens_decoder" key .* is not an id that tokenizer\.json defines/);
    }
  });

  it('still loads the valid folder and a byte-order-marked tokenizer.json', () => {
    expect(loadTokenizer(writeTinyFolder(fresh())).vocabSize).toBe(vocabSize());
    expect(loadTokenizer(writeTinyFolder(fresh(), { 'tokenizer.json': `\uFEFF${JSON.stringify(tinyFolder().tokenizer)}` })).vocabSize).toBe(vocabSize());
  });
});

describe('model files never echo their contents', () => {
  const secret = 'root:x:0:0:root:/root:/bin/bash\n';

  it('a config.json, tokenizer.json or safetensors header that is not JSON is refused without quoting it', () => {
    // What a symlink in a model folder to /etc/passwd would show: the message says where, not what.
    const dir = writeTinyFolder(fresh(), { 'config.json': secret, 'tokenizer.json': secret });
    const config = timed(() => readHfConfig(dir)).error;
    expect(config).toMatchObject({ code: 'NOT_JSON', message: expect.stringMatching(/config\.json is not valid JSON/) });
    expect(config.message).not.toContain('root');
    const tokenizer = timed(() => loadTokenizer(dir)).error;
    expect(tokenizer).toMatchObject({ code: 'NOT_JSON', message: expect.stringMatching(/tokenizer\.json is not valid JSON/) });
    expect(tokenizer.message).not.toContain('root');
    const header = timed(() => decodeSafetensors(safetensorsBytes(secret, new Uint8Array(0)))).error;
    expect(header).toMatchObject({ code: 'HEADER_NOT_JSON' });
    expect(header.message).not.toContain('root');
  });
});

describe('GGUF metadata arrays', () => {
  it('refuses an array longer than the bytes left could hold before allocating it', () => {
    const b = Buffer.alloc(64);
    b.writeUInt32LE(0x46554747, 0); // "GGUF"
    b.writeUInt32LE(3, 4);
    b.writeBigUInt64LE(0n, 8); // tensors
    b.writeBigUInt64LE(1n, 16); // metadata entries
    b.writeBigUInt64LE(1n, 24); // key length
    b.write('k', 32);
    b.writeUInt32LE(9, 33); // array
    b.writeUInt32LE(10, 37); // of u64
    b.writeBigUInt64LE(64n, 41); // 64 items of 8 bytes in 15 bytes left
    expect(() => decodeGguf(new Uint8Array(b))).toThrow(expect.objectContaining({ code: 'BAD_VALUE', message: expect.stringMatching(/array "k" claims 64 items/) }));
  });
});

describe('bounded files', () => {
  it.runIf(onPosix)('refuses FIFOs, devices and folders by what they are, not by reading them', () => {
    const fifo = join(root, 'pipe');
    mkfifo(fifo);
    for (const path of [fifo, '/dev/zero', root]) {
      const { error, ms } = timed(() => readBoundedFile(path, 1024, 'the file'));
      expect(error).toBeInstanceOf(FileBoundsError);
      expect((error as FileBoundsError).kind).toBe('not_file');
      expect(ms).toBeLessThan(100);
    }
    expect(() => checkBoundedFile(join(root, 'nothing'), 10)).toThrow(expect.objectContaining({ kind: 'missing' }));
  });

  it('refuses a file over the limit by its size', () => {
    const path = join(root, 'big');
    writeFileSync(path, 'x'.repeat(2000));
    expect(() => readBoundedFile(path, 1000, 'big')).toThrow(expect.objectContaining({ kind: 'too_large', message: 'big is 2000 bytes, over the 1000-byte limit' }));
    expect(readBoundedFile(path, 2000).length).toBe(2000);
  });
});

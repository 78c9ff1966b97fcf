// Fuzz of model-folder imports: deterministic mutations of a tiny valid Hugging Face folder (config.json
// fields and text, safetensors header entries and framing, tokenizer.json / tokenizer_config.json ids),
// each imported through the registry as the workbench does. Every variant either imports or fails with
// a ModelRegistryError whose message names the file at fault, quickly; the process stays up throughout.
// Inputs stay small: the limits are checked against sizes and counts before anything is allocated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Rand, pick, rand } from './seeded';
import { ModelConvertError } from '../../../electron/engine/models/convert';
import { ModelRegistryError, importModel, validateModelFolder } from '../../../electron/engine/models/registry';
import { HfConfigError } from '../../../native-models/io/hf-config';
import { SafetensorsError } from '../../../native-models/io/safetensors';
import { TokenizerError } from '../../../native-models/tokenizer/tokenizer-files';
import { type FolderFiles, safetensorsBytes, splitSafetensors, tinyFolder, writeTinyFolder } from '../native-models/io/tiny-model-folder';

const root = mkdtempSync(join(tmpdir(), 'fuzz-model-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

/** JSON values that break numbers, types and sizes. */
const VALUES: readonly unknown[] = [1e6, 1e9, 2 ** 32, 2 ** 53 + 2, 1e308, -1, 0, -0, 0.5, 1e-300, '12', '', [], {}, [1, 2], true, null, 'x'.repeat(5000), { a: { b: { c: 1 } } }];
const CONFIG_KEYS = [
  'vocab_size', 'hidden_size', 'intermediate_size', 'num_hidden_layers', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
  'max_position_embeddings', 'rope_theta', 'rms_norm_eps', 'tie_word_embeddings', 'architectures', 'hidden_act', 'rope_scaling',
  'rope_parameters', 'attention_bias', 'use_sliding_window',
] as const;
const ID_VALUES: readonly unknown[] = [1e9, 2 ** 32, 2 ** 32 + 1, 2 ** 53, -1, -(2 ** 31), 1.5, '5', null, true, [3], 1 << 20, (1 << 20) - 1];

function mutateText(r: Rand, text: string): string {
  switch (Math.floor(r() * 7)) {
    case 0: return deep(1000 + Math.floor(r() * 200_000));
    case 1: return `{"pad": "${'x'.repeat(1024 * 1024 + Math.floor(r() * 1000))}"}`;
    case 2: return `\uFEFF${text}`;
    case 3: return text.slice(0, Math.floor(r() * text.length));
    case 4: return pick(r, ['', 'null', '[]', '"x"', '42', '{', '\u0000\u0001']);
    case 5: {
      const chars = [...text];
      for (let k = 0; k < 1 + Math.floor(r() * 4); k++) chars[Math.floor(r() * chars.length)] = pick(r, ['{', '}', '[', '"', '\\', ',', ':', '9', '\u0000']);
      return chars.join('');
    }
    default: return text.replace(/\d+/, () => String(pick(r, VALUES)));
  }
}

/** One variant of one family: the files to write over the valid folder. */
const FAMILIES: Record<string, (r: Rand) => FolderFiles> = {
  'config.json fields': (r) => {
    const config: Record<string, unknown> = structuredClone(tinyFolder().config);
    for (let k = 0; k < 1 + Math.floor(r() * 2); k++) {
      const key = pick(r, CONFIG_KEYS);
      if (r() < 0.1) delete config[key];
      else config[key] = pick(r, VALUES);
    }
    return { 'config.json': JSON.stringify(config) };
  },
  'config.json text': (r) => ({ 'config.json': mutateText(r, JSON.stringify(tinyFolder().config)) }),
  'safetensors header entries': (r) => {
    const { header, data } = splitSafetensors(tinyFolder().weights);
    const names = Object.keys(header).filter((k) => k !== '__metadata__');
    const name = pick(r, names);
    const entry = { ...(header[name] as Record<string, unknown>) };
    switch (Math.floor(r() * 8)) {
      case 0: entry.dtype = pick(r, ['F33', 'f32', 5, null, '', 'I64', 'BOOL', 'F8_E4M3', 'U64']); break;
      case 1: entry.shape = pick(r, [[2 ** 20, 2 ** 20], [2 ** 53, 2], [-1, 8], [1.5], Array(20).fill(1), 'abc', null, [2 ** 31, 2 ** 31, 2 ** 31], []]); break;
      case 2: entry.data_offsets = pick(r, [[0, 2 ** 60], [100, 50], [0], [-8, 8], [0.5, 8], null, [0, data.length + 1], [2 ** 53, 2 ** 53 + 8]]); break;
      case 3: delete header[name]; return { 'model.safetensors': safetensorsBytes(header, data) };
      case 4: header[`${name}.copy`] = entry; break;
      case 5: header.__metadata__ = pick(r, [{ a: 1 }, [], 'x', { format: { deep: true } }]); break;
      case 6: entry.shape = (entry.shape as number[]).map((d) => d * (1 + Math.floor(r() * 4))); break;
      default: return { 'model.safetensors': safetensorsBytes(`{"${name}": ${deep(50_000)}}`, data) };
    }
    header[name] = entry;
    return { 'model.safetensors': safetensorsBytes(header, data) };
  },
  'safetensors framing': (r) => {
    const bytes = tinyFolder().weights;
    const headerLen = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
    const copy = bytes.slice();
    switch (Math.floor(r() * 4)) {
      case 0: {
        const lie = pick(r, [0n, 1n, 7n, BigInt(headerLen - 1), BigInt(headerLen + 1), BigInt(copy.length), 2n ** 40n, 2n ** 63n, 80n * 2n ** 20n]);
        new DataView(copy.buffer).setBigUint64(0, lie, true);
        return { 'model.safetensors': copy };
      }
      case 1: return { 'model.safetensors': copy.subarray(0, Math.floor(r() * copy.length)) };
      case 2: {
        for (let k = 0; k < 1 + Math.floor(r() * 8); k++) copy[8 + Math.floor(r() * headerLen)] = Math.floor(r() * 256);
        return { 'model.safetensors': copy };
      }
      default: return { 'model.safetensors': new Uint8Array([...copy, ...new Uint8Array(1 + Math.floor(r() * 64))]) };
    }
  },
  'tokenizer.json added tokens': (r) => {
    const t = structuredClone(tinyFolder().tokenizer) as { added_tokens: Array<Record<string, unknown>>; model: { vocab: Record<string, unknown> } };
    const first = t.added_tokens[0];
    switch (Math.floor(r() * 5)) {
      case 0: t.added_tokens.push({ ...first, id: pick(r, ID_VALUES), content: '<|fuzz|>' }); break;
      case 1: t.added_tokens.push({ ...first, id: pick(r, t.added_tokens).id, content: '<|dup|>' }); break;
      case 2: t.added_tokens[Math.floor(r() * t.added_tokens.length)].id = pick(r, ID_VALUES); break;
      case 3: t.added_tokens.push({ ...first, id: Object.keys(t.model.vocab).length + Math.floor(r() * 3000), content: pick(r, ['<|x|>', '', 5, null]) }); break;
      default: t.model.vocab[pick(r, Object.keys(t.model.vocab))] = pick(r, ID_VALUES);
    }
    return { 'tokenizer.json': JSON.stringify(t) };
  },
  'tokenizer_config.json and tokenizer.json text': (r) => {
    if (r() < 0.4) return { 'tokenizer.json': mutateText(r, JSON.stringify(tinyFolder().tokenizer)) };
    const config = structuredClone(tinyFolder().tokenizerConfig);
    const key = pick(r, ['4294967296', '-1', '1.5', 'abc', '1e9', '00', '999999', String(Math.floor(r() * 300))]);
    config.added_tokens_decoder = r() < 0.2 ? pick(r, [[], 'x', 5]) : { ...(config.added_tokens_decoder as object), [key]: pick(r, [{ content: '<|x|>' }, { content: 5 }, null, 'x']) };
    return { 'tokenizer_config.json': JSON.stringify(config) };
  },
};

const PER_FAMILY = 250;
const FILE_NAMED = /config\.json|safetensors|tokenizer(_config)?\.json/;
const TYPED = [HfConfigError, SafetensorsError, TokenizerError, ModelConvertError];

describe(`${(PER_FAMILY * Object.keys(FAMILIES).length).toLocaleString('en-US')} mutated model folders: clear error, no crash`, () => {
  let imported = 0;
  for (const [family, make] of Object.entries(FAMILIES)) {
    it(`${PER_FAMILY} folders with mutated ${family}: a ModelRegistryError naming the file, each within 2 s`, async () => {
      const seed = [...family].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261);
      let slowest = 0;
      let failed = 0;
      for (let i = 0; i < PER_FAMILY; i++) {
        const r = rand(seed + i);
        // Folder names carry no file names, so a message names a file only when it means one.
        const dir = writeTinyFolder(join(root, 'src', `v${imported}`), make(r));
        const t0 = performance.now();
        try {
          // Every tenth variant goes the whole way (copy, validate, publish); the rest are validated in
          // place by the same check, which keeps 1,500 variants to a few seconds.
          if (i % 10 === 0) await importModel({ hfDir: dir, name: `v${imported}`, modelsDir: join(root, 'models') });
          else validateModelFolder(dir);
        } catch (error) {
          // A failed variant is a registry error caused by a typed reader error that names the file at fault.
          const cause = error instanceof ModelRegistryError ? error.cause : undefined;
          const typed = TYPED.some((T) => cause instanceof T) || (cause instanceof Error && /^the tokenizer has \d+ tokens but/.test(cause.message));
          if (!typed || !FILE_NAMED.test((cause as Error).message)) {
            throw new Error(`${family} variant ${i}: ${String((cause as Error)?.stack ?? (error as Error)?.stack ?? error)}`);
          }
          expect((error as ModelRegistryError).code).toBe('INVALID');
          failed++;
        }
        slowest = Math.max(slowest, performance.now() - t0);
        imported++;
        rmSync(dir, { recursive: true, force: true });
      }
      expect(slowest).toBeLessThan(2000);
      // The mutations are meant to break the folder: most variants must fail (a few are harmless).
      expect(failed).toBeGreaterThan(PER_FAMILY * 0.6);
    });
  }

  it('the process is alive and well afterwards: the valid folder still imports, the heap is small', async () => {
    const entry = await importModel({ hfDir: writeTinyFolder(join(root, 'src', 'valid')), name: 'valid', modelsDir: join(root, 'models') });
    expect(entry.config.nLayers).toBe(1);
    expect(process.memoryUsage().heapUsed).toBeLessThan(1024 ** 3);
  });
});

import { existsSync, readFileSync, readdirSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bf16ToFloat32, exportHfFolder, readSafetensors } from '../../../../native-models';
import { hfShapeFromConfig, hfWeightsFromParams } from '../../../../electron/engine/models/convert';
import { MANIFEST_FILE, ModelRegistryError, importModel, listModels, loadModel, removeModel } from '../../../../electron/engine/models/registry';
import { nanoConfig, randomWeights, smallTokenizer, tempDirs } from './fixtures';
import type { ModelConfig } from '../../../../native-models';

const tmp = tempDirs();
afterAll(tmp.cleanup);

/** A Hugging Face folder written by native-models' exporter (not by the code under test). */
function hfFolder(config: ModelConfig = nanoConfig(), seed = 1): string {
  const dir = join(tmp.make(), 'src-model');
  exportHfFolder(dir, {
    shape: hfShapeFromConfig(config),
    weights: hfWeightsFromParams(config, randomWeights(config, seed)),
    tokenizer: smallTokenizer(),
    modelCard: '# test\n',
  });
  return dir;
}

async function importError(p: Promise<unknown>): Promise<ModelRegistryError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ModelRegistryError);
  return e as ModelRegistryError;
}

/** No folder under the name and no temp leftovers: a failed import leaves nothing behind. */
function expectNothingLeft(modelsDir: string): void {
  expect(existsSync(modelsDir) ? readdirSync(modelsDir) : []).toEqual([]);
}

describe('importModel / listModels / loadModel', () => {
  it('imports a folder under its name, lists it and loads bit-identical weights', async () => {
    const src = hfFolder(nanoConfig({ qkNorm: true }), 4);
    const modelsDir = join(tmp.make(), 'models');
    const recorded: string[] = [];
    const entry = await importModel({ hfDir: src, name: 'my-model_1.0', modelsDir, onImported: (e) => recorded.push(e.name) });
    expect(entry).toMatchObject({ name: 'my-model_1.0', path: join(modelsDir, 'my-model_1.0'), source: src, architecture: 'Qwen3ForCausalLM' });
    expect(entry.config).toEqual(nanoConfig({ qkNorm: true }));
    expect(entry.paramCount).toBeGreaterThan(50_000);
    expect(recorded).toEqual(['my-model_1.0']);
    expect(readdirSync(modelsDir)).toEqual(['my-model_1.0']);
    expect(readdirSync(entry.path).sort()).toEqual(
      ['README.md', 'config.json', 'generation_config.json', MANIFEST_FILE, 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'].sort(),
    );

    expect(listModels(modelsDir)).toEqual([entry]);
    const loaded = loadModel(modelsDir, 'my-model_1.0');
    expect(loaded.config).toEqual(entry.config);
    expect(loaded.tokenizer.encode('the cat sat')).toEqual(smallTokenizer().encode('the cat sat'));
    const original = readSafetensors(join(src, 'model.safetensors')).tensors;
    expect([...loaded.weights.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [name, t] of original)
      expect(
        Buffer.from(loaded.weights.get(name)!.buffer, loaded.weights.get(name)!.byteOffset, t.data.byteLength).equals(
          Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength),
        ),
      ).toBe(true);
  });

  it('imports a bfloat16 checkpoint, widened exactly to float32', async () => {
    const config = nanoConfig();
    const src = join(tmp.make(), 'bf16');
    exportHfFolder(src, {
      shape: hfShapeFromConfig(config),
      weights: hfWeightsFromParams(config, randomWeights(config, 8)),
      tokenizer: smallTokenizer(),
      modelCard: '',
      torchDtype: 'bfloat16',
    });
    const modelsDir = join(tmp.make(), 'models');
    await importModel({ hfDir: src, modelsDir });
    const loaded = loadModel(modelsDir, 'bf16');
    const stored = readSafetensors(join(src, 'model.safetensors')).tensors.get('model.layers.0.mlp.up_proj.weight')!;
    expect(stored.dtype).toBe('BF16');
    expect(loaded.weights.get('model.layers.0.mlp.up_proj.weight')).toEqual(bf16ToFloat32(stored.data as Uint16Array));
  });

  it('names the model after the source folder by default and refuses a name that is taken', async () => {
    const src = hfFolder();
    const modelsDir = join(tmp.make(), 'models');
    expect((await importModel({ hfDir: src, modelsDir })).name).toBe('src-model');
    const e = await importError(importModel({ hfDir: src, modelsDir }));
    expect(e.code).toBe('EXISTS');
    expect(e.message).toMatch(/"src-model" already exists/);
  });

  it('rejects names outside [A-Za-z0-9._-]{1,64} before touching the disk', async () => {
    const src = hfFolder();
    const modelsDir = join(tmp.make(), 'models');
    for (const name of ['', '../escape', 'a/b', 'a b', '.', '..', '.hidden', 'x'.repeat(65), 'ünïcode', 'name.tmp-abc123']) {
      const e = await importError(importModel({ hfDir: src, name, modelsDir }));
      expect(e.code, name).toBe('BAD_NAME');
    }
    expect(existsSync(modelsDir)).toBe(false);
    expect(() => loadModel(modelsDir, '../src-model')).toThrow(/a model name "\.\.\/src-model" must use only letters/);
  });

  it('says which model is missing', () => {
    const e = (() => {
      try {
        loadModel(tmp.make(), 'nope');
      } catch (x) {
        return x as ModelRegistryError;
      }
    })();
    expect(e?.code).toBe('NOT_FOUND');
    expect(e?.message).toMatch(/no model named "nope"/);
  });

  it('removes an imported model, and only folders an import made', async () => {
    const modelsDir = join(tmp.make(), 'models');
    await importModel({ hfDir: hfFolder(), name: 'gone', modelsDir });
    removeModel(modelsDir, 'gone');
    expect(readdirSync(modelsDir)).toEqual([]);
    expect(() => removeModel(modelsDir, 'gone')).toThrow(/no model named "gone"/);
    const handMade = join(modelsDir, 'hand-made');
    exportHfFolder(handMade, {
      shape: hfShapeFromConfig(nanoConfig()),
      weights: hfWeightsFromParams(nanoConfig(), randomWeights(nanoConfig())),
      tokenizer: smallTokenizer(),
      modelCard: '',
    });
    expect(() => removeModel(modelsDir, 'hand-made')).toThrow(/was not made by an import/);
    expect(existsSync(join(handMade, 'model.safetensors'))).toBe(true);
    expect(() => removeModel(modelsDir, '..')).toThrow(ModelRegistryError);
  });

  it('lists only folders that an import completed', async () => {
    const modelsDir = join(tmp.make(), 'models');
    await importModel({ hfDir: hfFolder(), name: 'b', modelsDir });
    await importModel({ hfDir: hfFolder(), name: 'a', modelsDir });
    const stray = join(modelsDir, 'hand-made');
    exportHfFolder(stray, {
      shape: hfShapeFromConfig(nanoConfig()),
      weights: hfWeightsFromParams(nanoConfig(), randomWeights(nanoConfig())),
      tokenizer: smallTokenizer(),
      modelCard: '',
    });
    writeFileSync(join(modelsDir, 'c.tmp-0123ab'), 'x');
    expect(listModels(modelsDir).map((m) => m.name)).toEqual(['a', 'b']);
    expect(listModels(join(modelsDir, 'absent'))).toEqual([]);
  });
});

describe('hostile model folders get clear errors and leave nothing behind', () => {
  const cases: [string, (dir: string) => void, string, RegExp][] = [
    [
      'an unknown architecture',
      (d) => editConfig(d, { architectures: ['GPT2LMHeadModel'] }),
      'INVALID',
      /architecture "GPT2LMHeadModel" is not one of/,
    ],
    ['weights that do not match config.json', (d) => editConfig(d, { intermediate_size: 128 }), 'INVALID', /weights do not match config\.json/],
    [
      'a config our transformer cannot run',
      (d) => editConfig(d, { rope_scaling: { rope_type: 'yarn', factor: 4 } }),
      'INVALID',
      /rope_scaling .* is not supported/,
    ],
    [
      'a truncated safetensors file',
      (d) => truncateSync(join(d, 'model.safetensors'), statSync(join(d, 'model.safetensors')).size - 100),
      'INVALID',
      /src-model\/model\.safetensors: .* fall outside the \d+-byte data section/,
    ],
    ['config.json that is not JSON', (d) => writeFileSync(join(d, 'config.json'), '{"architectures": ['), 'INVALID', /not valid JSON/],
    ['no tokenizer.json', (d) => rmSync(join(d, 'tokenizer.json')), 'NOT_A_MODEL', /has no tokenizer\.json/],
    ['no config.json', (d) => rmSync(join(d, 'config.json')), 'NOT_A_MODEL', /has no config\.json/],
    [
      'a tokenizer larger than the vocabulary',
      (d) => editConfig(d, { vocab_size: 100 }, true),
      'INVALID',
      /tokenizer has \d+ tokens but the model's vocabulary is 100/,
    ],
  ];

  for (const [label, damage, code, message] of cases) {
    it(`refuses ${label}`, async () => {
      const src = hfFolder();
      damage(src);
      const modelsDir = join(tmp.make(), 'models');
      const e = await importError(importModel({ hfDir: src, name: 'victim', modelsDir }));
      expect(e.code).toBe(code);
      expect(e.message).toMatch(message);
      expect(e.message, 'names the temp copy instead of the user folder').not.toMatch(/\.tmp-/);
      expectNothingLeft(modelsDir);
    });
  }

  it('refuses a folder over the size limit before copying', async () => {
    const modelsDir = join(tmp.make(), 'models');
    const e = await importError(importModel({ hfDir: hfFolder(), modelsDir, maxBytes: 1000 }));
    expect(e.code).toBe('TOO_LARGE');
    expectNothingLeft(modelsDir);
  });
});

/** Change config.json keys; with `resizeWeights`, also rewrite the weights to the new vocabulary. */
function editConfig(dir: string, patch: Record<string, unknown>, resizeWeights = false): void {
  const path = join(dir, 'config.json');
  const cfg = { ...JSON.parse(readFileSync(path, 'utf8')), ...patch };
  writeFileSync(path, JSON.stringify(cfg));
  if (resizeWeights) {
    const config = nanoConfig({ vocabSize: cfg.vocab_size as number });
    const hf = hfWeightsFromParams(config, randomWeights(config));
    exportHfFolder(dir, { shape: hfShapeFromConfig(config), weights: hf, tokenizer: smallTokenizer(), modelCard: '' });
  }
}

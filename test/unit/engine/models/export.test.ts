import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeGguf, dequantize, exportHfFolder, loadTokenizer, parseHfConfig, readSafetensors } from '../../../../native-models';
import { ModelConvertError, hfShapeFromConfig, hfWeightsFromParams } from '../../../../electron/engine/models/convert';
import { ExportError, exportModel } from '../../../../electron/engine/models/export';
import { mergeLora } from '../../../../electron/engine/models/lora';
import { importModel, loadModel } from '../../../../electron/engine/models/registry';
import { nanoConfig, randomWeights, smallTokenizer, tempDirs } from './fixtures';

const tmp = tempDirs();
afterAll(tmp.cleanup);

const CARD = { run: 'run-42', method: 'SFT then GRPO', metrics: { 'held-out pass rate': 0.61, steps: 300 } };

async function exportError(p: Promise<unknown>): Promise<ExportError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ExportError);
  return e as ExportError;
}

const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('exportModel', () => {
  it('import → export hf is lossless: bit-identical tensors and an equivalent config', async () => {
    const config = nanoConfig({ qkvBias: true, tiedEmbeddings: false });
    const src = join(tmp.make(), 'src');
    exportHfFolder(src, {
      shape: hfShapeFromConfig(config),
      weights: hfWeightsFromParams(config, randomWeights(config, 9)),
      tokenizer: smallTokenizer(),
      modelCard: '',
    });
    const modelsDir = join(tmp.make(), 'models');
    await importModel({ hfDir: src, name: 'qwen2ish', modelsDir });
    const m = loadModel(modelsDir, 'qwen2ish');
    const out = join(tmp.make(), 'out');
    const res = await exportModel({ config: m.config, weights: m.weights, tokenizer: m.tokenizer, format: 'hf', outDir: out, card: CARD });
    expect(res.files.map((f) => f.name)).toEqual([
      'README.md',
      'config.json',
      'generation_config.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect(res.files.every((f) => f.bytes > 0)).toBe(true);

    const before = readSafetensors(join(src, 'model.safetensors')).tensors;
    const after = readSafetensors(join(out, 'model.safetensors')).tensors;
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [name, t] of before) {
      expect(after.get(name)!.dtype).toBe('F32');
      expect(after.get(name)!.shape).toEqual(t.shape);
      expect(bytesOf(after.get(name)!.data).equals(bytesOf(t.data)), name).toBe(true);
    }
    const json = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(parseHfConfig(json(out))).toEqual(parseHfConfig(json(src)));
    expect(json(out).architectures).toEqual(['Qwen2ForCausalLM']);
    expect(loadTokenizer(out).json).toEqual(smallTokenizer().json);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toMatch(/run-42/);
    expect(readme).toMatch(/SFT then GRPO/);
    expect(readme).toMatch(/\| held-out pass rate \| 0\.61 \|/);
  });

  it('merges LoRA adapters into an hf export', async () => {
    const config = nanoConfig({ lora: { rank: 4, alpha: 16, targets: ['q_proj', 'gate_proj'] } });
    const weights = randomWeights(config, 5);
    const out = join(tmp.make(), 'merged');
    await exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'hf', outDir: out });
    const saved = readSafetensors(join(out, 'model.safetensors')).tensors;
    const merged = mergeLora(config, weights).params;
    expect([...saved.keys()].some((k) => k.includes('lora'))).toBe(false);
    for (const [name, w] of merged) expect(bytesOf(saved.get(name)!.data).equals(bytesOf(w)), name).toBe(true);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(/LoRA adapters .* merged/);
  });

  it('writes a PEFT adapter that reloads to the same tensors', async () => {
    const config = nanoConfig({ lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] } });
    const weights = randomWeights(config, 6);
    const out = join(tmp.make(), 'adapter');
    const res = await exportModel({
      config,
      weights,
      tokenizer: smallTokenizer(),
      format: 'lora',
      outDir: out,
      lora: { baseModel: 'org/base-model' },
    });
    expect(res.files.map((f) => f.name)).toEqual(['README.md', 'adapter_config.json', 'adapter_model.safetensors']);
    const cfg = JSON.parse(readFileSync(join(out, 'adapter_config.json'), 'utf8'));
    expect(cfg).toMatchObject({
      peft_type: 'LORA',
      r: 4,
      lora_alpha: 8,
      target_modules: ['q_proj', 'v_proj', 'down_proj'],
      base_model_name_or_path: 'org/base-model',
    });
    const tensors = readSafetensors(join(out, 'adapter_model.safetensors')).tensors;
    const adapterNames = [...weights.keys()].filter((k) => k.includes('lora_'));
    expect(adapterNames).toHaveLength(2 * 3 * 2);
    expect([...tensors.keys()].sort()).toEqual(adapterNames.map((k) => `base_model.model.${k}`).sort());
    for (const name of adapterNames)
      expect(bytesOf(tensors.get(`base_model.model.${name}`)!.data).equals(bytesOf(weights.get(name)!)), name).toBe(true);
  });

  it('writes the base beside the adapter in base/ (named by adapter_config.json), and --force replaces such an export', async () => {
    const config = nanoConfig({ lora: { rank: 2, alpha: 4, targets: ['q_proj', 'o_proj'] } });
    const weights = randomWeights(config, 8);
    const out = join(tmp.make(), 'adapter');
    const notes = ['The adapter applies to the model run r1 trained on: imported model "m" with 8 embedding rows added.', 'That base is in base/.'];
    const options = { config, weights, tokenizer: smallTokenizer(), format: 'lora' as const, outDir: out, lora: { writeBase: true, notes }, card: CARD };
    const res = await exportModel(options);
    expect(res.files.map((f) => f.name)).toEqual(expect.arrayContaining(['adapter_config.json', 'adapter_model.safetensors', 'base/config.json', 'base/model.safetensors', 'base/tokenizer.json']));
    expect(JSON.parse(readFileSync(join(out, 'adapter_config.json'), 'utf8')).base_model_name_or_path).toBe(join(out, 'base'));
    // The base: every weight but the adapters, as they were; no LoRA in its config.
    const base = readSafetensors(join(out, 'base', 'model.safetensors')).tensors;
    expect([...base.keys()].some((k) => k.includes('lora'))).toBe(false);
    const hf = hfWeightsFromParams(mergeLora(config, weights).config, weights);
    expect(bytesOf(base.get('model.layers.0.self_attn.q_proj.weight')!.data).equals(bytesOf(hf.get('model.layers.0.self_attn.q_proj.weight')!.data))).toBe(true);
    expect(parseHfConfig(JSON.parse(readFileSync(join(out, 'base', 'config.json'), 'utf8'))).vocabSize).toBe(config.vocabSize);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toMatch(/^library_name: peft$/m);
    expect(readme).toContain(`## Base model\n\n${notes[0]}\n\n${notes[1]}`);
    expect(readFileSync(join(out, 'base', 'README.md'), 'utf8')).toContain(notes[0]);
    await expect(exportModel({ ...options, force: true })).resolves.toMatchObject({ outDir: out });
  });

  it('refuses a LoRA export of a model without adapters, or without a base model', async () => {
    const config = nanoConfig();
    const e = await exportError(
      exportModel({
        config,
        weights: randomWeights(config),
        tokenizer: smallTokenizer(),
        format: 'lora',
        outDir: join(tmp.make(), 'x'),
        lora: { baseModel: 'b' },
      }),
    );
    expect(e.code).toBe('NO_LORA');
    const lora = nanoConfig({ lora: { rank: 2, alpha: 2, targets: ['q_proj'] } });
    const e2 = await exportError(
      exportModel({ config: lora, weights: randomWeights(lora), tokenizer: smallTokenizer(), format: 'lora', outDir: join(tmp.make(), 'x') }),
    );
    expect(e2.message).toMatch(/needs the base model/);
  });

  it('writes GGUF in F32, F16 and Q8_0 with llama.cpp names, types and metadata', async () => {
    const config = nanoConfig();
    const weights = randomWeights(config, 7);
    for (const dtype of ['f32', 'f16', 'q8_0'] as const) {
      const out = join(tmp.make(), dtype);
      const res = await exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'gguf', ggufDtype: dtype, outDir: out, card: CARD });
      expect(res.files.map((f) => f.name)).toEqual(['README.md', `model-${dtype}.gguf`]);
      // The hub files it under llama.cpp's format, not transformers (which cannot load the folder).
      const card = readFileSync(join(out, 'README.md'), 'utf8');
      expect(card).toMatch(/^library_name: gguf$/m);
      expect(card).toMatch(/^ {2}- gguf$/m);
      const file = decodeGguf(new Uint8Array(readFileSync(join(out, `model-${dtype}.gguf`))));
      expect(file.metadata.get('general.architecture')?.value).toBe('llama');
      expect(file.metadata.get('general.name')?.value).toBe('run-42');
      expect(file.metadata.get('llama.block_count')?.value).toBe(2);
      expect(file.tensors).toHaveLength(1 + 2 * 9 + 1);
      const embd = file.tensors.find((t) => t.name === 'token_embd.weight')!;
      const norm = file.tensors.find((t) => t.name === 'output_norm.weight')!;
      expect(embd.type).toBe(dtype.toUpperCase());
      expect(norm.type).toBe('F32');
      const values = dequantize(embd.type, new Uint8Array(embd.data.buffer, embd.data.byteOffset, embd.data.byteLength), embd.shape[0] * embd.shape[1]);
      const original = weights.get('model.embed_tokens.weight')!;
      // F32 exact; F16 within 2^-11 relative; Q8_0 within half a step (max |x| of a 32-weight block / 254: < 0.01 for these std-0.3 weights).
      const tolerance = { f32: 0, f16: 1e-3, q8_0: 0.01 }[dtype];
      for (const i of [0, 1234, original.length - 1]) expect(Math.abs(values[i] - original[i])).toBeLessThanOrEqual(tolerance);
    }
  });

  it('never overwrites: a non-empty folder needs force, force replaces the whole export, protected folders are refused', async () => {
    const config = nanoConfig();
    const weights = randomWeights(config);
    const home = tmp.make();
    const out = join(home, 'exports', 'e1');
    await exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'hf', outDir: out });
    expect((await exportError(exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'gguf', outDir: out }))).code).toBe(
      'OUT_DIR_NOT_EMPTY',
    );
    expect(readdirSync(out)).toContain('model.safetensors');
    await exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'gguf', outDir: out, force: true });
    expect(readdirSync(out).sort()).toEqual(['README.md', 'model-f32.gguf']);
    const protectedPaths = [join(home, 'runs'), join(home, 'models')];
    const e = await exportError(
      exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'hf', outDir: join(home, 'runs', 'r1'), protectedPaths }),
    );
    expect(e.code).toBe('OUT_DIR_PROTECTED');
  });

  it('refuses weights that do not match the config before writing anything', async () => {
    const config = nanoConfig();
    const weights = randomWeights(config);
    weights.delete('model.layers.1.mlp.down_proj.weight');
    const out = join(tmp.make(), 'never');
    for (const format of ['hf', 'onnx', 'gguf'] as const) {
      await expect(exportModel({ config, weights, tokenizer: smallTokenizer(), format, outDir: out })).rejects.toThrow(ModelConvertError);
    }
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(join(out, '..'))).toEqual([]);
  });

  it('refuses an unknown format and a tokenizer wider than the vocabulary', async () => {
    const config = nanoConfig();
    const weights = randomWeights(config);
    const bad = { config, weights, tokenizer: smallTokenizer(), format: 'pickle' as 'hf', outDir: join(tmp.make(), 'x') };
    expect((await exportError(exportModel(bad))).message).toMatch(/unknown export format "pickle"/);
    const small = nanoConfig({ vocabSize: 200 });
    const e = await exportError(
      exportModel({ config: small, weights: randomWeights(small), tokenizer: smallTokenizer(), format: 'hf', outDir: join(tmp.make(), 'x') }),
    );
    expect(e.message).toMatch(/tokenizer has \d+ tokens but the model's vocabulary is 200/);
  });
});

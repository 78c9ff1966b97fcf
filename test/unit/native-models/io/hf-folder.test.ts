import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostTensor } from '../../../../native-models/io/dtype';
import { HfConfigError, type HfModelShape } from '../../../../native-models/io/hf-config';
import { exportHfFolder, exportLoraAdapter, importHfModel, isHfModelFolder } from '../../../../native-models/io/hf-folder';
import { expectedHfTensors, expectedLoraTensors } from '../../../../native-models/io/hf-tensors';
import { readSafetensors } from '../../../../native-models/io/safetensors';
import { loadTokenizer, trainTokenizer } from '../../../../native-models/tokenizer/text-tokenizer';

const root = mkdtempSync(join(tmpdir(), 'hf-folder-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const tokenizer = trainTokenizer(['<|user|>hello there<|end|>', '<|act|>hello back<|end|>'], { vocabSize: 280 });
const shape: HfModelShape = {
  vocabSize: tokenizer.vocabSize,
  dModel: 8,
  nLayers: 1,
  nHeads: 2,
  nKvHeads: 1,
  dFf: 16,
  ropeTheta: 10000,
  normEps: 1e-6,
  tiedEmbeddings: true,
  qkvBias: true,
  qkNorm: false,
  maxSeqLen: 64,
  headDim: 4,
};

function random(specs: { name: string; shape: number[] }[], seed: number): Map<string, HostTensor> {
  let s = seed;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5);
  return new Map(specs.map((t) => [t.name, { dtype: 'F32' as const, shape: t.shape, data: Float32Array.from({ length: t.shape.reduce((a, b) => a * b, 1) }, next) }]));
}

describe('exportHfFolder / importHfModel', () => {
  it('exports a complete folder that imports back bit-exactly in float32', () => {
    const dir = join(root, 'export-f32');
    const weights = random(expectedHfTensors(shape), 1);
    exportHfFolder(dir, { shape, weights, tokenizer, modelCard: '# tiny\n', generation: { temperature: 0.8 } });
    expect(readdirSync(dir).sort()).toEqual(['README.md', 'config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']);
    expect(isHfModelFolder(dir)).toBe(true);
    const model = importHfModel(dir);
    expect(model.shape).toEqual(shape);
    expect([...model.weights.keys()].sort()).toEqual([...weights.keys()].sort());
    for (const [name, t] of weights) expect(model.weights.get(name)!.data).toEqual(t.data);
    const gen = JSON.parse(readFileSync(join(dir, 'generation_config.json'), 'utf8'));
    expect(gen).toMatchObject({ eos_token_id: tokenizer.eosTokenId, pad_token_id: tokenizer.padTokenId, temperature: 0.8 });
    expect(loadTokenizer(dir).encode('<|user|>hello')).toEqual(tokenizer.encode('<|user|>hello'));
    // transformers takes model_max_length as the longest input: the model's context, not a tokenizer default.
    expect(JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')).model_max_length).toBe(shape.maxSeqLen);
  });

  it('stores bfloat16 on request and widens it back on import', () => {
    const dir = join(root, 'export-bf16');
    const weights = random(expectedHfTensors(shape), 2);
    exportHfFolder(dir, { shape, weights, tokenizer, modelCard: 'x', torchDtype: 'bfloat16' });
    expect(readSafetensors(join(dir, 'model.safetensors')).tensors.get('model.norm.weight')!.dtype).toBe('BF16');
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).torch_dtype).toBe('bfloat16');
    const back = importHfModel(dir).weights.get('model.embed_tokens.weight')!.data as Float32Array;
    const orig = weights.get('model.embed_tokens.weight')!.data as Float32Array;
    for (let i = 0; i < orig.length; i++) expect(Math.abs(back[i] - orig[i])).toBeLessThanOrEqual(Math.abs(orig[i]) * 2 ** -8);
  });

  it('refuses to export or import weights that disagree with the shape', () => {
    const weights = random(expectedHfTensors(shape), 3);
    weights.delete('model.layers.0.self_attn.q_proj.bias');
    expect(() => exportHfFolder(join(root, 'bad'), { shape, weights, tokenizer, modelCard: '' })).toThrow(/q_proj\.bias" \[8\] is missing/);
    expect(existsSync(join(root, 'bad'))).toBe(false);

    const dir = join(root, 'tampered');
    exportHfFolder(dir, { shape, weights: random(expectedHfTensors(shape), 4), tokenizer, modelCard: '' });
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...cfg, intermediate_size: 32 }));
    expect(() => importHfModel(dir)).toThrow(HfConfigError);
    expect(() => importHfModel(dir)).toThrow(/mlp\.gate_proj\.weight" has shape \[16, 8\] but \[32, 8\] is expected/);
  });
});

describe('exportLoraAdapter', () => {
  it('writes PEFT names and adapter_config.json', () => {
    const dir = join(root, 'lora');
    const adapters = random(expectedLoraTensors(shape, { rank: 2, targets: ['q_proj', 'v_proj'], prefix: '' }), 5);
    exportLoraAdapter(dir, { shape, adapters, rank: 2, alpha: 4, targets: ['q_proj', 'v_proj'], baseModel: 'local/base' });
    const config = JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8'));
    expect(config).toMatchObject({ peft_type: 'LORA', r: 2, lora_alpha: 4, target_modules: ['q_proj', 'v_proj'], base_model_name_or_path: 'local/base' });
    const stored = readSafetensors(join(dir, 'adapter_model.safetensors')).tensors;
    expect([...stored.keys()]).toEqual(expectedLoraTensors(shape, { rank: 2, targets: ['q_proj', 'v_proj'] }).map((t) => t.name).sort());
    expect(stored.get('base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight')!.data).toEqual(
      adapters.get('model.layers.0.self_attn.v_proj.lora_B.weight')!.data,
    );
  });

  it('refuses adapters of another rank or target set', () => {
    const adapters = random(expectedLoraTensors(shape, { rank: 4, targets: ['q_proj'], prefix: '' }), 6);
    expect(() => exportLoraAdapter(join(root, 'lora-bad'), { shape, adapters, rank: 2, alpha: 4, targets: ['q_proj'], baseModel: 'b' })).toThrow(
      /lora_A\.weight" has shape \[4, 8\] but \[2, 8\] is expected/,
    );
  });
});

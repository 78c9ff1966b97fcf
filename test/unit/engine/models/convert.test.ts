import { describe, expect, it } from 'vitest';
import { type HfModelShape, parseHfConfig, resolveConfig, toHfConfig } from '../../../../native-models';
import {
  ModelConvertError,
  configFromHfShape,
  hfShapeFromConfig,
  hfWeightsFromParams,
  paramsFromHfWeights,
} from '../../../../electron/engine/models/convert';
import { nanoConfig, randomWeights } from './fixtures';

describe('HfModelShape ⇄ ModelConfig', () => {
  const variants = {
    'nano (Llama, tied, GQA)': nanoConfig(),
    'Qwen2 (q/k/v bias, untied)': nanoConfig({ qkvBias: true, tiedEmbeddings: false }),
    'Qwen3 (q/k norm, explicit head dim 32)': nanoConfig({ qkNorm: true, headDim: 32, ropeTheta: 1e6, normEps: 1e-6 }),
  };

  for (const [label, config] of Object.entries(variants)) {
    it(`round-trips ${label} through the HF shape and config.json`, () => {
      const shape = hfShapeFromConfig(config);
      expect(configFromHfShape(shape)).toEqual(config);
      // Through the JSON that an HF export writes and an import parses.
      expect(configFromHfShape(parseHfConfig(JSON.parse(JSON.stringify(toHfConfig(shape)))))).toEqual(config);
    });
  }

  it('states headDim in the HF shape and leaves it out of our config when it is dModel / nHeads', () => {
    const shape = hfShapeFromConfig(nanoConfig());
    expect(shape.headDim).toBe(16);
    expect(configFromHfShape(shape).headDim).toBeUndefined();
    expect(configFromHfShape({ ...shape, headDim: 8 }).headDim).toBe(8);
  });

  it('drops the LoRA section from the shape (adapters are merged or exported apart)', () => {
    const shape = hfShapeFromConfig(nanoConfig({ lora: { rank: 4, alpha: 8, targets: ['q_proj'] } }));
    expect(configFromHfShape(shape)).toEqual(nanoConfig());
  });

  it('refuses an HF shape our transformer cannot run, naming the problem', () => {
    const odd: HfModelShape = { ...hfShapeFromConfig(nanoConfig()), headDim: 15 };
    expect(() => configFromHfShape(odd)).toThrow(ModelConvertError);
    expect(() => configFromHfShape(odd)).toThrow(/head dim must be even/);
  });
});

describe('weights ⇄ params', () => {
  const config = nanoConfig();
  const params = randomWeights(config);

  it('maps every parameter both ways, sharing the arrays', () => {
    const hf = hfWeightsFromParams(config, params);
    expect([...hf.keys()]).toEqual([...params.keys()]);
    expect(hf.get('model.layers.1.self_attn.k_proj.weight')!.shape).toEqual([32, 64]);
    const back = paramsFromHfWeights(config, hf);
    for (const [name, w] of params) expect(back.get(name)).toBe(w);
  });

  it('reports missing, extra, misshapen and non-F32 tensors together', () => {
    const hf = hfWeightsFromParams(config, params);
    hf.delete('model.norm.weight');
    hf.set('lm_head.weight', { dtype: 'F32', shape: [320, 64], data: new Float32Array(320 * 64) });
    hf.set('model.layers.0.mlp.up_proj.weight', { dtype: 'F32', shape: [64, 176], data: new Float32Array(64 * 176) });
    hf.set('model.layers.0.input_layernorm.weight', { dtype: 'F16', shape: [64], data: new Uint16Array(64) });
    let message = '';
    try {
      paramsFromHfWeights(config, hf);
    } catch (e) {
      expect(e).toBeInstanceOf(ModelConvertError);
      message = (e as Error).message;
    }
    expect(message).toMatch(/missing model\.norm\.weight/);
    expect(message).toMatch(/unexpected lm_head\.weight/);
    expect(message).toMatch(/up_proj\.weight is \[64,176\], expected \[176,64\]/);
    expect(message).toMatch(/input_layernorm\.weight is F16/);
  });

  it('refuses a parameter map with a wrongly sized array', () => {
    const bad = new Map(params);
    bad.set('model.embed_tokens.weight', new Float32Array(10));
    expect(() => hfWeightsFromParams(config, bad)).toThrow(/embed_tokens\.weight has 10 values, expected 20480/);
    expect(() => hfWeightsFromParams(resolveConfig({ tiedEmbeddings: false }, config), params)).toThrow(/missing parameter lm_head\.weight/);
  });
});

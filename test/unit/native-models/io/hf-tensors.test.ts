import { describe, expect, it } from 'vitest';
import type { HfModelShape } from '../../../../native-models/io/hf-config';
import { checkHfWeights, expectedHfTensors, expectedLoraTensors, hfParameterCount } from '../../../../native-models/io/hf-tensors';

const tiny: HfModelShape = {
  vocabSize: 32,
  dModel: 16,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 2,
  dFf: 24,
  ropeTheta: 10000,
  normEps: 1e-6,
  tiedEmbeddings: false,
  qkvBias: false,
  qkNorm: false,
  maxSeqLen: 64,
  headDim: 4,
};

const asWeights = (specs: { name: string; shape: number[] }[]) =>
  new Map(specs.map((s) => [s.name, { dtype: 'F32' as const, shape: s.shape }]));

describe('expectedHfTensors', () => {
  it('lists Llama tensors with [out, in] linear shapes and grouped k/v heads', () => {
    const byName = new Map(expectedHfTensors(tiny).map((t) => [t.name, t.shape]));
    expect(byName.size).toBe(1 + 2 * 9 + 2);
    expect(byName.get('model.embed_tokens.weight')).toEqual([32, 16]);
    expect(byName.get('model.layers.1.self_attn.q_proj.weight')).toEqual([16, 16]);
    expect(byName.get('model.layers.1.self_attn.k_proj.weight')).toEqual([8, 16]);
    expect(byName.get('model.layers.0.self_attn.o_proj.weight')).toEqual([16, 16]);
    expect(byName.get('model.layers.0.mlp.down_proj.weight')).toEqual([16, 24]);
    expect(byName.get('model.layers.0.mlp.gate_proj.weight')).toEqual([24, 16]);
    expect(byName.get('lm_head.weight')).toEqual([32, 16]);
  });

  it('adds q/k/v biases for Qwen2, q/k norms for Qwen3, drops lm_head when tied', () => {
    const qwen2 = new Map(expectedHfTensors({ ...tiny, qkvBias: true, tiedEmbeddings: true }).map((t) => [t.name, t.shape]));
    expect(qwen2.get('model.layers.0.self_attn.v_proj.bias')).toEqual([8]);
    expect(qwen2.has('model.layers.0.self_attn.o_proj.bias')).toBe(false);
    expect(qwen2.has('lm_head.weight')).toBe(false);
    const qwen3 = new Map(expectedHfTensors({ ...tiny, qkNorm: true, headDim: 8 }).map((t) => [t.name, t.shape]));
    expect(qwen3.get('model.layers.1.self_attn.k_norm.weight')).toEqual([8]);
    expect(qwen3.get('model.layers.1.self_attn.q_proj.weight')).toEqual([32, 16]); // H*D may exceed C
    expect(qwen3.get('model.layers.1.self_attn.o_proj.weight')).toEqual([16, 32]);
  });

  it('parameter counts agree with the published sizes of real models', () => {
    // Qwen2.5-0.5B: 494,032,768 parameters; TinyLlama-1.1B: 1,100,048,384 (model cards / HF num_parameters()).
    const qwen25: HfModelShape = { vocabSize: 151936, dModel: 896, nLayers: 24, nHeads: 14, nKvHeads: 2, dFf: 4864, ropeTheta: 1e6, normEps: 1e-6, tiedEmbeddings: true, qkvBias: true, qkNorm: false, maxSeqLen: 32768, headDim: 64 };
    const tinyllama: HfModelShape = { vocabSize: 32000, dModel: 2048, nLayers: 22, nHeads: 32, nKvHeads: 4, dFf: 5632, ropeTheta: 1e4, normEps: 1e-5, tiedEmbeddings: false, qkvBias: false, qkNorm: false, maxSeqLen: 2048, headDim: 64 };
    expect(hfParameterCount(qwen25)).toBe(494_032_768);
    expect(hfParameterCount(tinyllama)).toBe(1_100_048_384);
  });
});

describe('checkHfWeights', () => {
  it('accepts exactly the expected set, plus the extras transformers ignores', () => {
    const weights = asWeights(expectedHfTensors(tiny));
    expect(checkHfWeights(weights, tiny)).toEqual([]);
    weights.set('model.layers.0.self_attn.rotary_emb.inv_freq', { dtype: 'F32', shape: [2] });
    expect(checkHfWeights(weights, tiny)).toEqual([]);
    const tied = { ...tiny, tiedEmbeddings: true };
    expect(checkHfWeights(weights, tied)).toEqual([]); // duplicate lm_head of a tied model
  });

  it('names missing, misshapen and unknown tensors', () => {
    const weights = asWeights(expectedHfTensors(tiny));
    weights.delete('model.layers.1.mlp.up_proj.weight');
    weights.set('model.layers.0.self_attn.k_proj.weight', { dtype: 'F32', shape: [16, 16] });
    weights.set('model.layers.0.self_attn.o_proj.bias', { dtype: 'F32', shape: [16] });
    const problems = checkHfWeights(weights, tiny);
    expect(problems.map((p) => [p.kind, p.name])).toEqual([
      ['shape', 'model.layers.0.self_attn.k_proj.weight'],
      ['missing', 'model.layers.1.mlp.up_proj.weight'],
      ['unexpected', 'model.layers.0.self_attn.o_proj.bias'],
    ]);
    expect(problems[0].message).toBe('tensor "model.layers.0.self_attn.k_proj.weight" has shape [16, 16] but [8, 16] is expected');
    const tiedBadHead = asWeights(expectedHfTensors({ ...tiny, tiedEmbeddings: true }));
    tiedBadHead.set('lm_head.weight', { dtype: 'F32', shape: [31, 16] });
    expect(checkHfWeights(tiedBadHead, { ...tiny, tiedEmbeddings: true }).map((p) => p.kind)).toEqual(['shape']);
  });
});

describe('expectedLoraTensors', () => {
  it('gives PEFT names with A as [r, in] and B as [out, r] for the chosen targets', () => {
    const specs = expectedLoraTensors(tiny, { rank: 4, targets: ['v_proj', 'q_proj', 'down_proj'] });
    expect(specs).toHaveLength(2 * 3 * 2);
    const byName = new Map(specs.map((t) => [t.name, t.shape]));
    expect(byName.get('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight')).toEqual([4, 16]);
    expect(byName.get('base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight')).toEqual([8, 4]);
    expect(byName.get('base_model.model.model.layers.1.mlp.down_proj.lora_A.weight')).toEqual([4, 24]);
    expect(specs[0].name).toBe('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight'); // model order, not argument order
    expect(expectedLoraTensors(tiny, { rank: 2, targets: ['o_proj'], prefix: '' })[1]).toEqual({ name: 'model.layers.0.self_attn.o_proj.lora_B.weight', shape: [16, 2] });
    expect(() => expectedLoraTensors(tiny, { rank: 0, targets: ['q_proj'] })).toThrow(RangeError);
  });
});

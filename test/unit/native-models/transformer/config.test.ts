import { describe, expect, it } from 'vitest';
import { PRESETS, preset } from '../../../../native-models/presets';
import { ConfigError, countParams, paramSpecs, parseOverrides, resolveConfig } from '../../../../native-models/transformer/config';

describe('model config', () => {
  it('presets span nano < 1M, tiny a few M, small tens of M parameters', () => {
    expect(countParams(PRESETS.nano)).toBeLessThan(1e6);
    expect(countParams(PRESETS.tiny)).toBeGreaterThan(1e6);
    expect(countParams(PRESETS.tiny)).toBeLessThan(1e7);
    expect(countParams(PRESETS.small)).toBeGreaterThan(1e7);
    expect(countParams(PRESETS.small)).toBeLessThan(1e8);
    expect(() => preset('huge')).toThrow(/unknown preset 'huge' \(known: nano, tiny, small\)/);
  });

  it('rejects unknown keys and inconsistent head counts with every problem named', () => {
    expect(() => resolveConfig({ dmodel: 64 } as never)).toThrow(ConfigError);
    expect(() => resolveConfig({ nHeads: 6, nKvHeads: 4 })).toThrow(/nHeads \(6\) must be a multiple of nKvHeads \(4\)/);
    expect(() => resolveConfig({ vocabSize: 0 })).toThrow(/vocabSize/);
    expect(() => resolveConfig({ lora: { rank: 2, alpha: 4, targets: ['qkv'] } } as never)).toThrow(/lora\.targets/);
  });

  it('names and shapes parameters exactly as Hugging Face Llama / Qwen3 / PEFT', () => {
    const c = resolveConfig({ vocabSize: 10, dModel: 8, nLayers: 1, nHeads: 4, nKvHeads: 2, dFf: 12, tiedEmbeddings: false, qkvBias: true, qkNorm: true, lora: { rank: 3, alpha: 6, targets: ['q_proj'] } });
    const specs = Object.fromEntries(paramSpecs(c).map((s) => [s.name, [s.shape, s.trainable]]));
    expect(specs).toEqual({
      'model.embed_tokens.weight': [[10, 8], false],
      'model.layers.0.input_layernorm.weight': [[8], false],
      'model.layers.0.self_attn.q_proj.weight': [[8, 8], false],
      'model.layers.0.self_attn.q_proj.bias': [[8], false],
      'model.layers.0.self_attn.q_proj.lora_A.weight': [[3, 8], true],
      'model.layers.0.self_attn.q_proj.lora_B.weight': [[8, 3], true],
      'model.layers.0.self_attn.k_proj.weight': [[4, 8], false],
      'model.layers.0.self_attn.k_proj.bias': [[4], false],
      'model.layers.0.self_attn.v_proj.weight': [[4, 8], false],
      'model.layers.0.self_attn.v_proj.bias': [[4], false],
      'model.layers.0.self_attn.o_proj.weight': [[8, 8], false],
      'model.layers.0.self_attn.q_norm.weight': [[2], false],
      'model.layers.0.self_attn.k_norm.weight': [[2], false],
      'model.layers.0.post_attention_layernorm.weight': [[8], false],
      'model.layers.0.mlp.gate_proj.weight': [[12, 8], false],
      'model.layers.0.mlp.up_proj.weight': [[12, 8], false],
      'model.layers.0.mlp.down_proj.weight': [[8, 12], false],
      'model.norm.weight': [[8], false],
      'lm_head.weight': [[10, 8], false],
    });
  });
});

describe('parseOverrides', () => {
  it('applies typed key=value pairs over a base config', () => {
    const c = parseOverrides(['dModel=96', 'nHeads=6', 'nKvHeads=3', 'qkNorm=true', 'lora.rank=4', 'lora.alpha=8', 'lora.targets=q_proj, v_proj'], PRESETS.nano);
    expect(c).toEqual({ ...PRESETS.nano, dModel: 96, nHeads: 6, nKvHeads: 3, qkNorm: true, lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] } });
  });
  it('rejects unknown keys, malformed pairs and ill-typed values', () => {
    expect(() => parseOverrides(['dmodel=96'])).toThrow(/unknown override key 'dmodel' \(known: vocabSize, dModel/);
    expect(() => parseOverrides(['lora.r=4'])).toThrow(/unknown override key 'lora\.r'/);
    expect(() => parseOverrides(['dModel'])).toThrow(/is not key=value/);
    expect(() => parseOverrides(['tiedEmbeddings=yes'])).toThrow(/tiedEmbeddings/);
    expect(() => parseOverrides(['lora.rank=4'])).toThrow(/lora\.(alpha|targets)/);
  });
});

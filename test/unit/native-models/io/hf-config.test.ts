import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HfConfigError,
  type HfModelShape,
  architectureFor,
  parseHfConfig,
  readHfConfig,
  toHfConfig,
  writeHfConfig,
} from '../../../../native-models/io/hf-config';

const root = mkdtempSync(join(tmpdir(), 'hf-config-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Field values as published in the models' config.json files.
const qwen25_05b = {
  architectures: ['Qwen2ForCausalLM'],
  model_type: 'qwen2',
  hidden_act: 'silu',
  hidden_size: 896,
  intermediate_size: 4864,
  max_position_embeddings: 32768,
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_scaling: null,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  use_sliding_window: false,
  vocab_size: 151936,
};

const qwen3_06b = {
  architectures: ['Qwen3ForCausalLM'],
  attention_bias: false,
  head_dim: 128,
  hidden_act: 'silu',
  hidden_size: 1024,
  intermediate_size: 3072,
  max_position_embeddings: 40960,
  num_attention_heads: 16,
  num_hidden_layers: 28,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-6,
  rope_scaling: null,
  rope_theta: 1000000,
  tie_word_embeddings: true,
  use_sliding_window: false,
  vocab_size: 151936,
};

const tinyllama = {
  architectures: ['LlamaForCausalLM'],
  hidden_act: 'silu',
  hidden_size: 2048,
  intermediate_size: 5632,
  max_position_embeddings: 2048,
  num_attention_heads: 32,
  num_hidden_layers: 22,
  num_key_value_heads: 4,
  rms_norm_eps: 1e-5,
  rope_scaling: null,
  tie_word_embeddings: false,
  vocab_size: 32000,
};

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(HfConfigError);
    return (e as HfConfigError).code;
  }
  throw new Error('expected an HfConfigError');
}

describe('parseHfConfig', () => {
  it('maps a Qwen2 config: q/k/v bias on, head dim derived from hidden size', () => {
    expect(parseHfConfig(qwen25_05b)).toEqual({
      vocabSize: 151936,
      dModel: 896,
      nLayers: 24,
      nHeads: 14,
      nKvHeads: 2,
      dFf: 4864,
      ropeTheta: 1000000,
      normEps: 1e-6,
      tiedEmbeddings: true,
      qkvBias: true,
      qkNorm: false,
      maxSeqLen: 32768,
      headDim: 64,
    });
  });

  it('maps a Qwen3 config: q/k norm on, explicit head dim wider than hidden / heads', () => {
    const s = parseHfConfig(qwen3_06b);
    expect(s).toMatchObject({ qkNorm: true, qkvBias: false, headDim: 128, nHeads: 16, dModel: 1024, maxSeqLen: 40960 });
  });

  it("fills absent optional keys with the config class's defaults", () => {
    const s = parseHfConfig(tinyllama);
    expect(s).toMatchObject({ ropeTheta: 10000, headDim: 64, qkvBias: false, qkNorm: false, tiedEmbeddings: false, normEps: 1e-5 });
    const bare = { architectures: ['LlamaForCausalLM'], vocab_size: 8, hidden_size: 8, intermediate_size: 16, num_hidden_layers: 1, num_attention_heads: 2 };
    expect(parseHfConfig(bare)).toMatchObject({ nKvHeads: 2, maxSeqLen: 2048, normEps: 1e-6, tiedEmbeddings: false });
    const { head_dim: _omit, ...qwen3NoHeadDim } = qwen3_06b;
    expect(parseHfConfig(qwen3NoHeadDim).headDim).toBe(128);
  });

  it('reads rope_theta from the newer rope_parameters block', () => {
    const { rope_theta: _omit, rope_scaling: _none, ...rest } = qwen3_06b;
    expect(parseHfConfig({ ...rest, rope_parameters: { rope_type: 'default', rope_theta: 5e5 } }).ropeTheta).toBe(5e5);
  });

  it('refuses unknown architectures and missing required keys, naming them', () => {
    expect(codeOf(() => parseHfConfig({ ...tinyllama, architectures: ['MistralForCausalLM'] }))).toBe('UNKNOWN_ARCHITECTURE');
    expect(() => parseHfConfig({ ...tinyllama, architectures: ['GPT2LMHeadModel'] })).toThrow(/"GPT2LMHeadModel" is not one of LlamaForCausalLM/);
    const { architectures: _a, ...noArch } = tinyllama;
    expect(codeOf(() => parseHfConfig(noArch))).toBe('MISSING_KEY');
    const { vocab_size: _v, ...noVocab } = tinyllama;
    expect(() => parseHfConfig(noVocab)).toThrow(/no "vocab_size"/);
    expect(codeOf(() => parseHfConfig([tinyllama]))).toBe('BAD_VALUE');
  });

  it('refuses non-integer, non-positive or inconsistent sizes', () => {
    expect(() => parseHfConfig({ ...tinyllama, hidden_size: 2048.5 })).toThrow(/"hidden_size" must be a positive integer, got 2048.5/);
    expect(codeOf(() => parseHfConfig({ ...tinyllama, num_hidden_layers: 0 }))).toBe('BAD_VALUE');
    expect(codeOf(() => parseHfConfig({ ...tinyllama, vocab_size: '32000' }))).toBe('BAD_VALUE');
    expect(codeOf(() => parseHfConfig({ ...tinyllama, num_key_value_heads: 5 }))).toBe('BAD_VALUE');
    expect(codeOf(() => parseHfConfig({ ...tinyllama, hidden_size: 2047 }))).toBe('BAD_VALUE'); // no head_dim, not divisible
    expect(codeOf(() => parseHfConfig({ ...tinyllama, rms_norm_eps: -1 }))).toBe('BAD_VALUE');
    expect(codeOf(() => parseHfConfig({ ...tinyllama, tie_word_embeddings: 'yes' }))).toBe('BAD_VALUE');
  });

  it('refuses features this runtime would silently get wrong', () => {
    const cases: Record<string, unknown>[] = [
      { rope_scaling: { rope_type: 'llama3', factor: 32 } },
      { hidden_act: 'gelu' },
      { attention_bias: true },
      { mlp_bias: true },
      { use_sliding_window: true },
    ];
    for (const extra of cases) expect(codeOf(() => parseHfConfig({ ...tinyllama, ...extra }))).toBe('UNSUPPORTED');
    expect(() => parseHfConfig({ ...tinyllama, rope_scaling: { rope_type: 'llama3' } })).toThrow(/LlamaForCausalLM with rope_scaling/);
  });

  it('readHfConfig reports a missing file and broken JSON', () => {
    expect(codeOf(() => readHfConfig(join(root, 'nothing')))).toBe('MISSING_FILE');
    writeFileSync(join(root, 'config.json'), '{"architectures": [');
    expect(codeOf(() => readHfConfig(root))).toBe('NOT_JSON');
  });
});

describe('toHfConfig / writeHfConfig', () => {
  const shapes: HfModelShape[] = [parseHfConfig(qwen25_05b), parseHfConfig(qwen3_06b), parseHfConfig(tinyllama)];

  it('round-trips every supported architecture through config.json', () => {
    for (const s of shapes) {
      const dir = mkdtempSync(join(root, 'export-'));
      writeHfConfig(dir, s, { bosTokenId: 1, eosTokenId: [2, 3], torchDtype: 'bfloat16', temperature: 0.7 });
      expect(readHfConfig(dir)).toEqual(s);
      const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      expect(cfg).toMatchObject({ bos_token_id: 1, eos_token_id: [2, 3], torch_dtype: 'bfloat16', hidden_act: 'silu' });
      const gen = JSON.parse(readFileSync(join(dir, 'generation_config.json'), 'utf8'));
      expect(gen).toEqual({ bos_token_id: 1, eos_token_id: [2, 3], do_sample: true, temperature: 0.7 });
    }
  });

  it('picks the architecture and model_type from the switches', () => {
    expect(shapes.map(architectureFor)).toEqual(['Qwen2ForCausalLM', 'Qwen3ForCausalLM', 'LlamaForCausalLM']);
    expect(shapes.map((s) => toHfConfig(s).model_type)).toEqual(['qwen2', 'qwen3', 'llama']);
    expect(codeOf(() => architectureFor({ ...shapes[0], qkNorm: true }))).toBe('UNSUPPORTED');
  });

  it('refuses to write an invalid shape', () => {
    expect(codeOf(() => toHfConfig({ ...shapes[2], nLayers: 1.5 }))).toBe('BAD_VALUE');
    expect(codeOf(() => toHfConfig({ ...shapes[2], nKvHeads: 3 }))).toBe('BAD_VALUE');
    expect(codeOf(() => toHfConfig({ ...shapes[2], normEps: 0 }))).toBe('BAD_VALUE');
  });
});

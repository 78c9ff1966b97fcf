import { describe, expect, it } from 'vitest';
import { loraAdapters, mergeLora } from '../../../../electron/engine/models/lora';
import { ModelConvertError } from '../../../../electron/engine/models/convert';
import { nanoConfig, ourLogits, randomWeights, relativeError } from './fixtures';

describe('mergeLora', () => {
  const config = nanoConfig({ tiedEmbeddings: false, lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'o_proj', 'down_proj'] } });
  const params = randomWeights(config, 3);

  it("folds (alpha/rank)·B·A into the base weights: the merged model has the adapted model's logits", async () => {
    const merged = mergeLora(config, params);
    expect(merged.config.lora).toBeUndefined();
    expect([...merged.params.keys()].some((k) => k.includes('lora_'))).toBe(false);
    const rows = [[5, 40, 77, 120, 9, 300, 64, 2]];
    const adapted = await ourLogits(config, params, rows);
    const folded = await ourLogits(merged.config, merged.params, rows);
    const base = await ourLogits(merged.config, new Map([...params].filter(([k]) => !k.includes('lora_'))), rows);
    expect(relativeError(folded, adapted)).toBeLessThan(1e-5);
    // The adapters matter here, so the agreement above is not vacuous.
    expect(relativeError(base, adapted)).toBeGreaterThan(1e-2);
  });

  it('computes W + (alpha/rank)·B·A entry by entry and leaves the inputs untouched', () => {
    const name = 'model.layers.0.self_attn.q_proj';
    const before = params.get(`${name}.weight`)!.slice();
    const { params: merged } = mergeLora(config, params);
    const [A, B, W] = [params.get(`${name}.lora_A.weight`)!, params.get(`${name}.lora_B.weight`)!, merged.get(`${name}.weight`)!];
    const [o, i, r] = [3, 7, 4];
    let expected = before[o * 64 + i];
    for (let k = 0; k < r; k++) expected += (8 / 4) * B[o * r + k] * A[k * 64 + i];
    expect(W[o * 64 + i]).toBeCloseTo(expected, 5);
    expect(params.get(`${name}.weight`)).toEqual(before);
    // Untargeted projections are passed through as they are.
    expect(merged.get('model.layers.0.self_attn.k_proj.weight')).toBe(params.get('model.layers.0.self_attn.k_proj.weight'));
  });

  it('returns a model without LoRA unchanged', () => {
    const plain = nanoConfig();
    const p = randomWeights(plain);
    const m = mergeLora(plain, p);
    expect(m.config).toBe(plain);
    expect(m.params).toBe(p);
  });
});

describe('loraAdapters', () => {
  it('lists exactly the adapter tensors with HF shapes', () => {
    const config = nanoConfig({ lora: { rank: 2, alpha: 4, targets: ['k_proj', 'up_proj'] } });
    const adapters = loraAdapters(config, randomWeights(config));
    expect([...adapters.keys()]).toHaveLength(2 * 2 * 2);
    expect(adapters.get('model.layers.1.self_attn.k_proj.lora_A.weight')!.shape).toEqual([2, 64]);
    expect(adapters.get('model.layers.1.mlp.up_proj.lora_B.weight')!.shape).toEqual([176, 2]);
  });

  it('is an error for a model without adapters', () => {
    const config = nanoConfig();
    expect(() => loraAdapters(config, randomWeights(config))).toThrow(ModelConvertError);
    expect(() => loraAdapters(config, randomWeights(config))).toThrow(/no LoRA adapters/);
  });
});

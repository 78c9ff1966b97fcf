import { describe, expect, it } from 'vitest';
import { Trainer } from '../../../../native-models/trainer';
import { PRESETS } from '../../../../native-models/presets';
import { worldModelWeights } from '../../../../native-models/training/world-model-weights';

describe('worldModelWeights', () => {
  it('spreads λ / (length · selected) over each selected observation', () => {
    const tokens = [[9, 9, 9, 9, 9, 9], [9, 9, 9]];
    const w = worldModelWeights(tokens, [{ row: 0, start: 2, end: 6, lambda: 0.5 }, { row: 1, start: 1, end: 3, lambda: 1 }]);
    expect(w).toEqual([[0, 0, 0.0625, 0.0625, 0.0625, 0.0625], [0, 0.25, 0.25]]);
    expect(worldModelWeights(tokens, [{ row: 1, start: 1, end: 2, lambda: 1 }], 4)[1]).toEqual([0, 0.25, 0]);
    expect(() => worldModelWeights(tokens, [{ row: 2, start: 1, end: 2, lambda: 1 }])).toThrow(/row 2, batch has 2/);
    expect(() => worldModelWeights(tokens, [{ row: 0, start: 0, end: 2, lambda: 1 }])).toThrow(/not inside row 0/);
  });

  it('gives the CMAE of the worked example through the train step (p ≤ ρ counted, divided by full length)', async () => {
    // With λ = 1 and one selected observation of 4 tokens the CMAE term is Σ_{p≤ρ}(1 − p) / 4;
    // here it is checked against the same sum over the trainer's own per-token probabilities.
    const t = await Trainer.create({ config: PRESETS.nano, objective: { worldModel: { kind: 'cmae' } }, knobs: { cmaeRho: 0.2 }, optimizer: { lr: 0 } });
    const tokens = [[1, 2, 3, 4, 5, 6]];
    const { logprobs } = await t.logprobs(tokens);
    const stats = await t.trainStep({ tokens, wmWeight: worldModelWeights(tokens, [{ row: 0, start: 2, end: 6, lambda: 1 }]) });
    const expected = logprobs[0].slice(2, 6).map(Math.exp).filter((p) => p <= 0.2).reduce((s, p) => s + (1 - p), 0) / 4;
    expect(expected).toBeGreaterThan(0.9); // an untrained model puts p ≈ 1/256 on every token: all counted
    expect(stats.terms.wm).toBeCloseTo(expected, 5);
  });
});

import { describe, expect, it } from 'vitest';
import { benchTrain, trainFlopsPerToken } from '../../../../native-models/bench/train';
import { PRESETS } from '../../../../native-models/presets';
import { countParams, resolveConfig } from '../../../../native-models/transformer/config';

describe('train benchmark', () => {
  it('counts 6 FLOPs per matmul parameter (tied head included once) plus attention', () => {
    const c = resolveConfig({ vocabSize: 10, dModel: 4, nLayers: 1, nHeads: 2, nKvHeads: 1, dFf: 6, tiedEmbeddings: true });
    // q 4x4, k 2x4, v 2x4, o 4x4, gate/up/down 3·24, tied head 10x4
    const matmul = 16 + 8 + 8 + 16 + 72 + 40;
    expect(trainFlopsPerToken(c, 5)).toBe(6 * matmul + 12 * 1 * 2 * 2 * 5);
    expect(trainFlopsPerToken({ ...c, tiedEmbeddings: false }, 5)).toBe(6 * matmul + 12 * 1 * 2 * 2 * 5);
  });

  it('counts a frozen LoRA base at 4 FLOPs per weight (no weight gradient) and the adapters at 6', () => {
    const c = resolveConfig({ vocabSize: 10, dModel: 4, nLayers: 1, nHeads: 2, nKvHeads: 1, dFf: 6, tiedEmbeddings: true, lora: { rank: 2, alpha: 4, targets: ['q_proj'] } });
    const matmul = 16 + 8 + 8 + 16 + 72 + 40;
    const adapters = 2 * 4 + 4 * 2; // lora_A [2,4], lora_B [4,2]
    expect(trainFlopsPerToken(c, 5)).toBe(4 * matmul + 6 * adapters + 12 * 1 * 2 * 2 * 5);
  });

  it('reports consistent figures for a tiny run (no timing assertions)', async () => {
    const [r] = await benchTrain({ presets: ['nano'], batch: 2, seqLen: 16, steps: 1, torch: false, threads: 1 });
    expect(r.preset).toBe('nano');
    expect(r.params).toBe(countParams(PRESETS.nano));
    expect(r.tokensPerSec).toBeCloseTo((2 * 16) / (r.medianStepMs / 1000), 6);
    expect(r.achievedGflops).toBeCloseTo((r.tokensPerSec * r.flopsPerToken) / 1e9, 6);
    expect(r.mfu).toBeCloseTo(r.achievedGflops / r.gemmPeakGflops, 9);
    expect(r.gemmPeakGflops).toBeGreaterThan(0);
    expect(r.peakRssMb).toBeGreaterThan(0);
    expect(r.torch).toBeUndefined();
    expect(r.stepMsRuns).toHaveLength(1);
    expect(r.stepMsRuns).toContain(r.medianStepMs);
  });
});

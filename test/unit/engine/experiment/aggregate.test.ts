import { describe, expect, it } from 'vitest';
import { aggregate, meanCurves, meanStd, pairedDelta } from '../../../../electron/engine/experiment/aggregate';
import type { Method } from '../../../../electron/engine/experiment/suite';
import { evalCell, runCell } from './fixtures';

describe('meanStd', () => {
  it('is the mean and the sample standard deviation (n − 1)', () => {
    const s = meanStd([2, 4, 4, 4, 5, 5, 7, 9])!;
    expect(s.mean).toBe(5);
    // Population std of this set is 2; the sample std is sqrt(32 / 7).
    expect(s.std).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(meanStd([0.25])).toEqual({ mean: 0.25, std: null, n: 1 });
    expect(meanStd([])).toBeNull();
  });
});

describe('pairedDelta', () => {
  it('per seed the method minus its own seed’s base, then mean ± sample sd, with each seed’s sign', () => {
    // Seeds 1, 2, 3: differences +0.2, −0.1, 0; seed 4 has no base.
    const d = pairedDelta(
      new Map([
        [1, 0.5],
        [2, 0.3],
        [3, 0.25],
        [4, 0.9],
      ]),
      new Map([
        [1, 0.3],
        [2, 0.4],
        [3, 0.25],
      ]),
      [1, 2, 3, 4],
    )!;
    expect(d.mean).toBeCloseTo(0.1 / 3, 12);
    expect(d.std).toBeCloseTo(Math.sqrt(((0.2 - 0.1 / 3) ** 2 + (-0.1 - 0.1 / 3) ** 2 + (0.1 / 3) ** 2) / 2), 12);
    expect(d.n).toBe(3);
    expect(d.signs).toEqual(['+', '−', '0', '·']);
  });

  it('pairs by seed, not by position: unpaired means would hide a per-seed gain', () => {
    // The method beats SFT by 0.1 on every seed although the seeds differ a lot.
    const method = new Map([
      [1, 0.1],
      [2, 0.9],
    ]);
    const base = new Map([
      [2, 0.8],
      [1, 0.0],
    ]);
    const d = pairedDelta(method, base, [1, 2])!;
    expect(d.mean).toBeCloseTo(0.1, 12);
    expect(d.std).toBeCloseTo(0, 12);
    expect(d.signs).toEqual(['+', '+']);
    expect(pairedDelta(method, new Map(), [1, 2])).toBeNull();
  });
});

describe('aggregate', () => {
  const suite = { envs: [{ env: 'retail' }], seeds: [1, 2], methods: ['sft', 'grpo-real', 'envace'] as Method[], testTime: { modes: ['parallel' as const], rehearsals: [2] } };
  const tt = { mode: 'parallel' as const, rehearsals: 2 };
  const cells = [
    runCell('sft', 1, { gatherEnvCalls: 300 }),
    runCell('sft', 2, { gatherEnvCalls: 340 }),
    evalCell('sft', 1, 'heldout', { success: 0.25, meanScore: 0.5 }),
    evalCell('sft', 2, 'heldout', { success: 0.5, meanScore: 0.5 }),
    evalCell('sft', 1, 'train', { success: 0.5 }),
    evalCell('sft', 2, 'train', { success: 0.5 }),
    runCell('grpo-real', 1, {
      trainEnvCalls: 40,
      groupsWithSignal: 0.5,
      timing: { steps: 8, stepMs: 2000, rolloutMs: 1500, envMs: 100, generationMs: 1400, trainMs: 500 },
      realErrors: { errors: 1, total: 4 },
    }),
    runCell('grpo-real', 2, {
      trainEnvCalls: 60,
      groupsWithSignal: 1,
      timing: { steps: 8, stepMs: 4000, rolloutMs: 3000, envMs: 300, generationMs: 2700, trainMs: 1000 },
      realErrors: { errors: 0, total: 4 },
    }),
    evalCell('grpo-real', 1, 'heldout', { success: 0.5, meanScore: 0.75 }),
    evalCell('grpo-real', 2, 'heldout', { success: 0.25, meanScore: 0.25 }),
    evalCell('grpo-real', 1, 'train', { success: 0.75 }),
    runCell('envace', 1, { fidelityStart: 0.2, fidelityEnd: 0.4, imaginedErrors: { errors: 0, total: 10 }, checkedErrors: { imagined: { errors: 0, total: 5 }, real: { errors: 2, total: 5 } } }),
    evalCell('envace', 1, 'heldout', { success: 0.5 }),
    evalCell('envace', 1, 'heldout', { success: 0.75, fidelity: 0.3 }, tt),
    evalCell('sft', 1, 'heldout', { success: 0, fidelity: 0.5 }, tt),
  ];
  const rows = aggregate(cells, suite);
  const row = (variant: string) => rows.find((r) => r.variant === variant)!;

  it('one row per variant in table order; the SFT row has no Δ of its own', () => {
    expect(rows.map((r) => r.variant)).toEqual(['sft', 'grpo-real', 'envace', 'sft+tt-parallel-2', 'envace+tt-parallel-2']);
    expect(row('sft').heldout.deltaSuccess).toBeNull();
    expect(row('sft').heldout.success).toEqual({ mean: 0.375, std: Math.sqrt(0.03125), n: 2 });
  });

  it('Δ against the same seed’s SFT checkpoint, held-out and training tasks apart', () => {
    const grpo = row('grpo-real');
    // Held-out: seed 1 +0.25, seed 2 −0.25.
    expect(grpo.heldout.deltaSuccess).toEqual({ mean: 0, std: Math.sqrt(0.125), n: 2, signs: ['+', '−'] });
    expect(grpo.heldout.deltaScore!.signs).toEqual(['+', '−']);
    // Training tasks: only seed 1 was evaluated, +0.25.
    expect(grpo.train.deltaSuccess).toEqual({ mean: 0.25, std: null, n: 1, signs: ['+', '·'] });
    expect(row('envace+tt-parallel-2').heldout.deltaSuccess).toEqual({ mean: 0.5, std: null, n: 1, signs: ['+', '·'] });
    expect(row('envace+tt-parallel-2').train.deltaSuccess).toBeNull();
    // The SFT checkpoint with rehearsal pairs against the same checkpoint without: seed 1, 0 − 0.25.
    expect(row('sft+tt-parallel-2').heldout.deltaSuccess).toEqual({ mean: -0.25, std: null, n: 1, signs: ['−', '·'] });
    expect(row('sft+tt-parallel-2').testTimeFidelity).toMatchObject({ mean: 0.5 });
  });

  it('training figures from the row’s own run: data env calls include the seed’s SFT gathering, step time in seconds', () => {
    const grpo = row('grpo-real');
    expect(grpo.gatherEnvCalls).toEqual({ mean: 320, std: Math.sqrt(800), n: 2 });
    expect(row('sft').gatherEnvCalls!.mean).toBe(320);
    expect(grpo.trainEnvCalls!.mean).toBe(50);
    expect(grpo.groupsWithSignal!.mean).toBe(0.75);
    expect([grpo.stepS!.mean, grpo.generationS!.mean, grpo.envS!.mean, grpo.trainS!.mean]).toEqual([3, 2.05, 0.2, 0.75]);
    expect(grpo.realErrorRate).toEqual({ mean: 0.125, std: Math.sqrt(0.03125), n: 2 });
    const envace = row('envace');
    expect([envace.fidelityStart!.mean, envace.fidelityEnd!.mean, envace.imaginedErrorRate!.mean]).toEqual([0.2, 0.4, 0]);
    expect([envace.checkedImaginedErrorRate!.mean, envace.checkedRealErrorRate!.mean]).toEqual([0, 0.4]);
    // Test-time rows reuse envace's run: no training figures of their own.
    const ttRow = row('envace+tt-parallel-2');
    expect([ttRow.trainEnvCalls, ttRow.stepS, ttRow.fidelityStart]).toEqual([null, null, null]);
    expect(ttRow.testTimeFidelity!.mean).toBe(0.3);
  });
});

describe('meanCurves', () => {
  it('averages seeds step by step per method and source; a step only one seed reached keeps its value', () => {
    const out = meanCurves([
      runCell('envace', 1, { curves: [{ source: 'reward', steps: [1, 2, 3], values: [0, 0.5, 1] }] }),
      runCell('envace', 2, { curves: [{ source: 'reward', steps: [1, 2], values: [1, 0.5] }, { source: 'reality-check', steps: [1], values: [0.4] }] }),
      runCell('paw', 1, { curves: [{ source: 'reward', steps: [1], values: [0.7] }] }),
    ]);
    expect(out).toEqual([
      { env: 'retail', method: 'envace', source: 'reward', seeds: 2, steps: [1, 2, 3], values: [0.5, 0.5, 1] },
      { env: 'retail', method: 'envace', source: 'reality-check', seeds: 1, steps: [1], values: [0.4] },
      { env: 'retail', method: 'paw', source: 'reward', seeds: 1, steps: [1], values: [0.7] },
    ]);
  });
});

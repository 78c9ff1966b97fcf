import { describe, expect, it } from 'vitest';
import { aggregate, meanCurves, meanStd, variantLabel, variantOrder } from '../../../../electron/engine/experiment/aggregate';
import type { Variant } from '../../../../electron/engine/experiment/plan';
import type { Curve, Measurement } from '../../../../electron/engine/experiment/runner';

const measurement = (over: Partial<Measurement>): Measurement => ({
  env: 'retail',
  seed: 1,
  variant: { method: 'envace', testTime: null },
  runId: 'run-x',
  step: 10,
  warmStart: true,
  success: 0,
  meanScore: 0,
  invalidActionRate: 0,
  envCallsPerTask: 0,
  tokensPerTask: 0,
  evalWallMs: 0,
  fidelity: null,
  gatherEnvCalls: 0,
  trainEnvCalls: 0,
  trainEnvCallsTotal: 0,
  trainWallMs: 0,
  ...over,
});

describe('meanStd', () => {
  it('is the mean and the sample standard deviation (n − 1)', () => {
    const s = meanStd([2, 4, 4, 4, 5, 5, 7, 9])!;
    expect(s.mean).toBe(5);
    // Population std of this set is 2; the sample std is sqrt(32 / 7).
    expect(s.std).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(s.n).toBe(8);
  });

  it('one value has no spread, none is null, non-finite values are left out', () => {
    expect(meanStd([0.25])).toEqual({ mean: 0.25, std: null, n: 1 });
    expect(meanStd([])).toBeNull();
    expect(meanStd([1, Number.NaN, 3])).toEqual({ mean: 2, std: Math.SQRT2, n: 2 });
  });
});

describe('aggregate', () => {
  const tt: Variant = { method: 'envace', testTime: { mode: 'sequential', rehearsals: 2 } };
  const ms = [
    measurement({ seed: 1, success: 0.2, trainEnvCalls: 0, trainWallMs: 1000 }),
    measurement({ seed: 2, success: 0.4, trainEnvCalls: 0, trainWallMs: 3000 }),
    measurement({ seed: 1, variant: tt, success: 0.5, fidelity: 0.3 }),
    measurement({ seed: 1, variant: { method: 'grpo-real', testTime: null }, warmStart: false, trainEnvCalls: 40, success: 0.1 }),
    measurement({ seed: 2, variant: { method: 'grpo-real', testTime: null }, warmStart: true, trainEnvCalls: 60, success: 0.3 }),
    measurement({ env: 'household', seed: 1, success: 1 }),
  ];
  const rows = aggregate(ms, ['retail', 'household'], [{ method: 'grpo-real', testTime: null }, { method: 'envace', testTime: null }, tt]);

  it('one row per env and variant, in the order given', () => {
    expect(rows.map((r) => [r.env, r.variant])).toEqual([
      ['retail', 'grpo-real'],
      ['retail', 'envace'],
      ['retail', 'envace+tt-sequential-2'],
      ['household', 'grpo-real'],
      ['household', 'envace'],
      ['household', 'envace+tt-sequential-2'],
    ]);
  });

  it('averages each figure over the seeds of its env and variant only', () => {
    const envace = rows[1];
    expect(envace.n).toBe(2);
    expect(envace.success!.mean).toBeCloseTo(0.3, 12);
    expect(envace.success!.std).toBeCloseTo(Math.sqrt(0.02), 12);
    expect(envace.trainWallS).toEqual({ mean: 2, std: Math.SQRT2, n: 2 });
    expect(envace.fidelity).toBeNull();
    expect(rows[2].fidelity).toEqual({ mean: 0.3, std: null, n: 1 });
    expect(rows[0].trainEnvCalls!.mean).toBe(50);
    expect(rows[4].success).toEqual({ mean: 1, std: null, n: 1 });
  });

  it('says when only some seeds had the SFT warm start, and leaves unmeasured rows empty', () => {
    expect(rows[0].warmStart).toBe('mixed');
    expect(rows[1].warmStart).toBe('yes');
    expect(rows[3]).toMatchObject({ n: 0, success: null, trainEnvCalls: null });
  });
});

describe('variantOrder and labels', () => {
  it('lists envace’s test-time variants right after envace, only for the chosen methods', () => {
    const order = variantOrder({ methods: ['rwml', 'envace', 'sft'], testTime: { modes: ['parallel', 'sequential'], rehearsals: [1, 4] } });
    expect(order.map(variantLabel)).toEqual([
      'SFT only',
      'envace',
      'envace + TT parallel N=1',
      'envace + TT parallel N=4',
      'envace + TT sequential N=1',
      'envace + TT sequential N=4',
      'RWML → grpo-real',
    ]);
  });
});

describe('meanCurves', () => {
  const curve = (over: Partial<Curve>): Curve => ({
    env: 'retail',
    seed: 1,
    method: 'envace',
    kind: 'reward',
    source: 'reward',
    steps: [],
    values: [],
    ...over,
  });

  it('averages seeds step by step; a step only one seed reached keeps that seed’s value', () => {
    const out = meanCurves([
      curve({ seed: 1, steps: [1, 2, 3], values: [0, 0.5, 1] }),
      curve({ seed: 2, steps: [1, 2], values: [1, 0.5] }),
      curve({ method: 'paw', steps: [1], values: [0.7] }),
      curve({ kind: 'fidelity', source: 'reality-check', steps: [2], values: [0.4] }),
    ]);
    expect(out).toHaveLength(3);
    expect(out[0]).toEqual({ env: 'retail', kind: 'reward', method: 'envace', source: 'reward', seeds: 2, steps: [1, 2, 3], values: [0.5, 0.5, 1] });
    expect(out[1]).toMatchObject({ method: 'paw', seeds: 1, values: [0.7] });
    expect(out[2]).toMatchObject({ kind: 'fidelity', source: 'reality-check', steps: [2], values: [0.4] });
  });
});

import { describe, expect, it } from 'vitest';
import { type GroupOutput, groupAdvantages, roleAdvantages, roleRewardMeans } from '../../../../electron/engine/algorithms/advantages';
import { AlgorithmError } from '../../../../electron/engine/algorithms/errors';

// algorithms.md worked example: K = 2; rollout 1 (R = 1): act, rehearse, act, rehearse, act;
// rollout 2 (R = 0): act, rehearse, act.
const rewards = [1, 0];
const outputs: GroupOutput[] = [
  ...(['act', 'rehearse', 'act', 'rehearse', 'act'] as const).map((role) => ({ rollout: 0, role })),
  ...(['act', 'rehearse', 'act'] as const).map((role) => ({ rollout: 1, role })),
];
const base = { baseline: 'pooled-per-output', shared: false, stdNormalize: false } as const;

describe('roleAdvantages', () => {
  it('pools the baseline per output and per role (worked example)', () => {
    const a = roleAdvantages(rewards, outputs, base);
    const expected = [0.4, 1 / 3, 0.4, 1 / 3, 0.4, -0.6, -2 / 3, -0.6];
    a.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 12));
  });

  it('per-rollout variant averages rollouts, not outputs (μ = 0.5 for both roles)', () => {
    const a = roleAdvantages(rewards, outputs, { ...base, baseline: 'per-rollout' });
    expect(a).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, -0.5, -0.5, -0.5]);
  });

  it('shared baseline uses one group for both roles', () => {
    // 8 outputs, 5 with R = 1 → μ = 5/8.
    const a = roleAdvantages(rewards, outputs, { ...base, shared: true });
    expect(a[0]).toBeCloseTo(3 / 8, 12);
    expect(a[1]).toBeCloseTo(3 / 8, 12);
    expect(a[5]).toBeCloseTo(-5 / 8, 12);
  });

  it('std normalisation divides by the pooled std of the role group', () => {
    const a = roleAdvantages(rewards, outputs, { ...base, stdNormalize: true });
    const stdAct = Math.sqrt(0.6 * 0.4); // Bernoulli(0.6) over the 5 act outputs
    expect(a[0]).toBeCloseTo(0.4 / stdAct, 10);
    expect(a[5]).toBeCloseTo(-0.6 / stdAct, 10);
  });

  it('equal rewards give all-zero advantages, with and without std normalisation', () => {
    for (const stdNormalize of [false, true]) expect(roleAdvantages([0.7, 0.7], outputs, { ...base, stdNormalize }).every((x) => x === 0)).toBe(true);
  });

  it('a role with a single output gets advantage 0', () => {
    const a = roleAdvantages(
      [1, 0],
      [
        { rollout: 0, role: 'act' },
        { rollout: 1, role: 'act' },
        { rollout: 0, role: 'rehearse' },
      ],
      base,
    );
    expect(a).toEqual([0.5, -0.5, 0]);
  });

  it('rejects outputs pointing outside the group and non-finite rewards', () => {
    expect(() => roleAdvantages([1], [{ rollout: 1, role: 'act' }], base)).toThrow(AlgorithmError);
    expect(() => roleAdvantages([Number.NaN, 1], outputs, base)).toThrow(/finite/);
  });
});

describe('groupAdvantages / roleRewardMeans', () => {
  it('plain GRPO: reward minus group mean, optionally over the std', () => {
    expect(groupAdvantages([1, 0, 0, 1], false)).toEqual([0.5, -0.5, -0.5, 0.5]);
    expect(groupAdvantages([1, 0, 0, 1], true)).toEqual([1, -1, -1, 1]);
  });

  it('role reward means equal the pooled baselines', () => {
    const m = roleRewardMeans(rewards, outputs);
    expect(m.act).toBeCloseTo(0.6, 12);
    expect(m.rehearse).toBeCloseTo(2 / 3, 12);
  });
});

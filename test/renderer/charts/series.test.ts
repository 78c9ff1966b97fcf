import { describe, expect, it } from 'vitest';
import { addPoint, alignSeries, orderKeys, smooth } from '../../../renderer/src/charts/series';

describe('smooth', () => {
  it('returns the raw values at weight 0', () => {
    expect(smooth([1, 5, 2], 0)).toEqual([1, 5, 2]);
  });
  it('is a debiased EMA: a constant series stays constant and the first point is not pulled to 0', () => {
    expect(smooth([4, 4, 4], 0.9).map((v) => +v.toFixed(12))).toEqual([4, 4, 4]);
    const out = smooth([0, 10], 0.5);
    // EMA: 0 then 0.5·0 + 0.5·10 = 5, debiased by 1 − 0.5² = 0.75 → 6.667.
    expect(out[0]).toBe(0);
    expect(out[1]).toBeCloseTo(20 / 3, 12);
  });
  it('passes non-finite values through without poisoning later points', () => {
    const out = smooth([1, Number.NaN, 1], 0.5);
    expect(Number.isNaN(out[1])).toBe(true);
    expect(out[2]).toBeCloseTo(1, 12);
  });
});

describe('addPoint', () => {
  const base = { steps: [1, 2, 4], values: [10, 20, 40] };
  it('appends newer steps, replaces a repeated step, inserts an older one in order', () => {
    expect(addPoint(base, 5, 50)).toEqual({ steps: [1, 2, 4, 5], values: [10, 20, 40, 50] });
    expect(addPoint(base, 2, 22)).toEqual({ steps: [1, 2, 4], values: [10, 22, 40] });
    expect(addPoint(base, 3, 30)).toEqual({ steps: [1, 2, 3, 4], values: [10, 20, 30, 40] });
    expect(addPoint({ steps: [], values: [] }, 0, 1)).toEqual({ steps: [0], values: [1] });
    expect(base).toEqual({ steps: [1, 2, 4], values: [10, 20, 40] });
  });
});

describe('orderKeys', () => {
  it('puts rewards, then success, then losses first, the rest alphabetically', () => {
    expect(orderKeys(['tokens_per_s', 'loss/policy', 'success', 'entropy', 'reward/act', 'reward'])).toEqual([
      'reward',
      'reward/act',
      'success',
      'loss/policy',
      'entropy',
      'tokens_per_s',
    ]);
  });
});

describe('alignSeries', () => {
  it('puts runs on the union of their steps with null where a run did not log', () => {
    const aligned = alignSeries([
      { steps: [0, 2, 4], values: [1, 2, 3] },
      { steps: [1, 2], values: [10, 20] },
    ]);
    expect(aligned).toEqual({ steps: [0, 1, 2, 4], values: [[1, null, 2, 3], [null, 10, 20, null]] });
  });
  it('keeps a single series as it is', () => {
    expect(alignSeries([{ steps: [3, 5], values: [0.1, 0.2] }])).toEqual({ steps: [3, 5], values: [[0.1, 0.2]] });
    expect(alignSeries([])).toEqual({ steps: [], values: [] });
  });
});

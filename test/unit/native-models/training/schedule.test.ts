import { describe, expect, it } from 'vitest';
import { lrAt } from '../../../../native-models/training/schedule';

const s = { lr: 1e-3, warmupSteps: 10, totalSteps: 110, minLrRatio: 0.1 };

describe('lrAt (warmup + cosine)', () => {
  it('ramps linearly during warmup, reaching lr at the last warmup step', () => {
    expect(lrAt(0, s)).toBeCloseTo(1e-4, 12);
    expect(lrAt(4, s)).toBeCloseTo(5e-4, 12);
    expect(lrAt(9, s)).toBeCloseTo(1e-3, 12);
  });
  it('decays by a half cosine to minLrRatio·lr and stays there', () => {
    expect(lrAt(10, s)).toBeCloseTo(1e-3, 12);
    expect(lrAt(60, s)).toBeCloseTo(1e-4 + 0.5 * 9e-4, 12); // halfway: midpoint of lr and floor
    expect(lrAt(110, s)).toBeCloseTo(1e-4, 12);
    expect(lrAt(500, s)).toBeCloseTo(1e-4, 12);
  });
  it('is monotone after warmup and rejects bad steps', () => {
    for (let k = 10; k < 110; k++) expect(lrAt(k + 1, s)).toBeLessThanOrEqual(lrAt(k, s));
    expect(() => lrAt(-1, s)).toThrow(RangeError);
    expect(() => lrAt(1.5, s)).toThrow(/non-negative integer/);
  });
});

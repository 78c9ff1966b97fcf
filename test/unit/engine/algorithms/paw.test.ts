import { describe, expect, it } from 'vitest';
import { AlgorithmError } from '../../../../electron/engine/algorithms/errors';
import { cmae, selectTopFraction, transitionEntropy, worldModelLambda } from '../../../../electron/engine/algorithms/paw';

describe('PaW', () => {
  it('H(a_t) is the mean surprisal of the sampled action tokens', () => {
    expect(transitionEntropy([Math.log(0.5), Math.log(0.25)])).toBeCloseTo((Math.log(2) + Math.log(4)) / 2, 12);
    expect(() => transitionEntropy([])).toThrow(AlgorithmError);
  });

  it('keeps the 6 highest-entropy of 8 transitions at α = 0.75', () => {
    const h = [0.1, 2, 0.05, 3, 1, 0.7, 0.9, 5];
    expect(selectTopFraction(h, 0.75)).toEqual([1, 3, 4, 5, 6, 7]);
    expect(selectTopFraction(h, 1)).toHaveLength(8);
    expect(selectTopFraction([], 0.75)).toEqual([]);
    expect(() => selectTopFraction(h, 0)).toThrow(/alpha/);
  });

  it('λ_WM for rewards [10, 0, 0, 10] and R_max 10 is 0.5', () => {
    expect(worldModelLambda([10, 0, 0, 10], 10)).toBe(0.5);
    expect(worldModelLambda([1, 1], 1)).toBe(0);
    expect(() => worldModelLambda([1], 0)).toThrow(/R_max/);
  });

  it('CMAE counts tokens with p ≤ ρ and divides by the full length (worked example)', () => {
    expect(cmae([0.9, 0.1, 0.15, 0.5], 0.2)).toBeCloseTo(0.4375, 12);
  });
});

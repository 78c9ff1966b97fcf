import { describe, expect, it } from 'vitest';
import { AlgorithmError } from '../../../../electron/engine/algorithms/errors';
import { cmae, selectTopFraction, transitionEntropy, transitions, worldModelLambda } from '../../../../electron/engine/algorithms/paw';
import { type Segment, flatten } from '../../../../electron/engine/algorithms/layout';

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

describe('PaW transitions', () => {
  const given = (role: Segment['role'], ids: number[]): Segment => ({ role, text: '', ids: [100, ...ids, 5], lead: 1, tail: 1, logprobs: [] });
  const act = (ids: number[], logprobs: number[]): Segment => ({ role: 'act', text: '', ids: [2, ...ids], lead: 1, tail: 0, logprobs });

  it('finds each generated action followed by a real observation, with the observation span in the row', () => {
    const segs = [
      given('prompt', [7, 7]),
      act([11, 5], [Math.log(0.5), Math.log(0.5)]),
      given('env', [21, 22, 23]),
      act([12, 5], [0, 0]),
      given('rehearse', [9]),
    ];
    const tokens = flatten(segs);
    const [t, ...rest] = transitions(segs);
    expect(rest).toEqual([]); // the second action is followed by a rehearsed, not a real, observation
    expect(tokens.slice(t.start, t.end)).toEqual([21, 22, 23, 5]); // observation content and its <|end|>
    expect(t.entropy).toBeCloseTo(Math.log(2), 12);
  });

  it('given (demonstration) actions are not transitions: nothing was sampled', () => {
    expect(transitions([given('act', [1]), given('env', [2])])).toEqual([]);
  });
});

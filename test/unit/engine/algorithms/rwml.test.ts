import { describe, expect, it } from 'vitest';
import { AlgorithmError } from '../../../../electron/engine/algorithms/errors';
import { Rng } from '../../../../electron/engine/algorithms/random';
import { charNgramCosine, dropEasy, jsonF1, rougeL, similarityFunction, similarityReward } from '../../../../electron/engine/algorithms/rwml';

describe('similarities', () => {
  it('json-f1 compares leaf fields regardless of key order', () => {
    expect(jsonF1('{"a":1,"b":"x"}', '{"b":"x","a":1}')).toBe(1);
    // predicted 2 fields, real 4, 2 shared → P = 1, R = 0.5 → F1 = 2/3
    expect(jsonF1('{"a":1,"b":2}', '{"a":1,"b":2,"c":3,"d":4}')).toBeCloseTo(2 / 3, 12);
    expect(jsonF1('{"a":[1,2]}', '{"a":[2,1]}')).toBe(0);
  });

  it('json-f1 falls back to ROUGE-L on non-JSON text', () => {
    expect(jsonF1('Error: no such order', 'Error: no such order')).toBe(1);
    expect(jsonF1('You open the fridge', 'You open the drawer')).toBeCloseTo(rougeL('You open the fridge', 'You open the drawer'), 12);
  });

  it('rouge-l: LCS over words', () => {
    // LCS("the cat sat", "the cat on the mat sat") = 3 → P = 1, R = 0.5
    expect(rougeL('the cat sat', 'the cat on the mat sat')).toBeCloseTo(2 / 3, 12);
    expect(rougeL('', '')).toBe(1);
    expect(rougeL('a', '')).toBe(0);
  });

  it('char-ngram-cos: identical 1, disjoint 0, partial in between', () => {
    expect(charNgramCosine('abcd', 'abcd')).toBe(1);
    expect(charNgramCosine('abcd', 'wxyz')).toBe(0);
    // trigrams abc, bcd vs abc, bce → dot 1, norms √2·√2
    expect(charNgramCosine('abcd', 'abce')).toBeCloseTo(0.5, 12);
  });

  it('embedding needs an embedder and uses cosine of its vectors', async () => {
    expect(() => similarityFunction('embedding')).toThrow(AlgorithmError);
    const sim = similarityFunction('embedding', { embed: async (t) => t.map((s) => (s === 'a' ? [1, 0] : [1, 1])) });
    expect(await sim('a', 'b')).toBeCloseTo(Math.SQRT1_2, 12);
  });
});

describe('rewards and easy-sample drop', () => {
  it('binary and rounded rewards', () => {
    expect(similarityReward(0.8, 'binary', 0.8)).toBe(1);
    expect(similarityReward(0.79, 'binary', 0.8)).toBe(0);
    expect(similarityReward(0.69, 'rounded', 0.8)).toBe(0.6);
    expect(similarityReward(0.71, 'rounded', 0.8)).toBe(0.8);
    expect(() => similarityReward(1.5, 'binary', 0.5)).toThrow(/\[0, 1\]/);
  });

  it('keeps hard transitions always and easy ones with the given probability, reproducibly', () => {
    const means = Array.from({ length: 2000 }, (_, i) => (i % 2 ? 1 : 0.2));
    const kept = dropEasy(means, 0.9, 0.1, new Rng(7));
    expect(dropEasy(means, 0.9, 0.1, new Rng(7))).toEqual(kept);
    const hard = kept.filter((i) => i % 2 === 0).length;
    const easy = kept.filter((i) => i % 2 === 1).length;
    expect(hard).toBe(1000);
    expect(easy).toBeGreaterThan(60);
    expect(easy).toBeLessThan(140);
  });
});

import { describe, expect, it } from 'vitest';
import { AlgorithmError } from '../../../../electron/engine/algorithms/errors';
import { Rng } from '../../../../electron/engine/random';
import {
  MAX_FILL_ROUNDS,
  charNgramCosine,
  charRougeL,
  dropEasy,
  fillBatch,
  jsonF1,
  jsonSoft,
  parseLenientJson,
  rougeL,
  similarityFunction,
  similarityReward,
} from '../../../../electron/engine/algorithms/rwml';

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

// A retail order as the env returns it (compact JSON), and the same object cut where a 32-token
// observation budget cuts it.
const order = {
  order_id: '#W7807988',
  user_id: 'harper_kim_2998',
  status: 'pending',
  address: { city: 'San Antonio', state: 'TX', zip: '78222' },
  items: [
    { name: 'Smart Watch', item_id: '2554056026', price: 367.38 },
    { name: 'Digital Camera', item_id: '8940227892', price: 2790.5 },
  ],
};
const real = JSON.stringify(order);
const cut = real.slice(0, 90);

describe('json-soft', () => {
  it('scores a one-field near miss high but below 1, a wrong value lower than a near one', () => {
    const nearId = jsonSoft(JSON.stringify({ ...order, user_id: 'harper_kim_2999' }), real);
    const wrongStatus = jsonSoft(JSON.stringify({ ...order, status: 'delivered' }), real);
    expect(nearId).toBeGreaterThan(0.95);
    expect(nearId).toBeLessThan(1);
    expect(wrongStatus).toBeGreaterThan(0.85);
    expect(wrongStatus).toBeLessThan(nearId);
    // a price a cent off is nearly right; the strict field F1 gives a near miss nothing
    expect(jsonSoft(real.replace('367.38', '367.39'), real)).toBeGreaterThan(0.99);
    expect(jsonF1(real.replace('367.38', '367.39'), real)).toBeLessThan(0.95);
  });

  it('scores a totally different object near 0, and ignores key order', () => {
    expect(jsonSoft('{"error":"Order not found","code":404}', real)).toBeLessThan(0.05);
    expect(jsonSoft('{"products":[{"id":"1","stock":3}]}', real)).toBeLessThan(0.05);
    const reordered = JSON.stringify({ items: order.items, address: { zip: '78222', city: 'San Antonio', state: 'TX' }, status: 'pending', user_id: order.user_id, order_id: order.order_id });
    expect(jsonSoft(reordered, real)).toBe(1);
  });

  it('truncation no longer decides the score', () => {
    // The old target: the cut real text is not JSON, so json-f1 fell back to whitespace ROUGE-L and
    // even a perfect prediction scored 0.
    expect(jsonF1(real, cut)).toBe(0);
    expect(jsonSoft(real, real)).toBe(1);
    // A prediction cut at the same budget, right so far, judged on what it had room to write.
    expect(jsonSoft(cut, real, { cut: true })).toBeGreaterThan(0.95);
    // ...and one cut but wrong so far is not.
    expect(jsonSoft(cut.replace('harper_kim_2998', 'zed_lee_1000').replace('pending', 'delivered'), real, { cut: true })).toBeLessThan(0.6);
    // Claiming to be complete after a third of the object costs recall.
    expect(jsonSoft('{"order_id":"#W7807988","user_id":"harper_kim_2998"}', real)).toBeLessThan(0.5);
  });

  it('closes cut-off JSON at the last point that parses', () => {
    expect(parseLenientJson('{"a":1,"b":"xy')).toEqual({ ok: true, value: { a: 1, b: 'xy' } });
    expect(parseLenientJson('{"a":1,"b":')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseLenientJson('{"a":[1,2,{"c":tr')).toEqual({ ok: true, value: { a: [1, 2, {}] } });
    expect(parseLenientJson('{"a":"x\\')).toEqual({ ok: true, value: { a: 'x' } });
    expect(parseLenientJson('Error: Order not found')).toEqual({ ok: false });
  });

  it('compares text that is not JSON by characters, not whitespace tokens', () => {
    expect(jsonSoft('Error: Order not found', 'Error: Order not found')).toBe(1);
    const near = jsonSoft('Error: Order #W123 not found', 'Error: Order #W124 not found');
    expect(near).toBeGreaterThan(0.9);
    expect(rougeL('Error: Order #W123 not found', 'Error: Order #W124 not found')).toBeLessThan(0.85);
    expect(charRougeL('abc', 'abcdef', { cut: true })).toBe(1);
    expect(jsonSoft('You open the fridge', 'Nothing happens.')).toBeLessThan(0.4);
  });

  it('is the similarity a run can select by name, passing the cut flag through', async () => {
    const sim = similarityFunction('json-soft');
    expect(await sim(cut, real, { cut: true })).toBeCloseTo(jsonSoft(cut, real, { cut: true }), 12);
    expect(await sim(cut, real)).toBeLessThan(0.5);
  });
});

describe('fillBatch', () => {
  // Even ids are hard (half the samples right), odd ids easy (all right).
  const pool = Array.from({ length: 12 }, (_, id) => id);
  const probeOf = (calls: number[][]) => async (items: number[]) => {
    calls.push(items);
    return items.map((id) => ({ id, rewards: id % 2 ? [1, 1, 1, 1] : [1, 0, 1, 0] }));
  };

  it('drops easy transitions before training and refills their places, keeping the batch size', async () => {
    const calls: number[][] = [];
    const { kept, probed } = await fillBatch(pool, 4, probeOf(calls), { easyThreshold: 0.9, keepProbability: 0, rng: new Rng(1) });
    expect(kept.map((k) => k.id)).toEqual([0, 2, 4, 6]);
    // round 0 probed 4 (2 easy dropped), round 1 the 2 places, round 2 the last place
    expect(calls).toEqual([[0, 1, 2, 3], [4, 5], [6]]);
    expect(probed.map((p) => p.id)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('stops when the pool runs out or after MAX_FILL_ROUNDS probes', async () => {
    const calls: number[][] = [];
    const easy = Array.from({ length: 40 }, (_, i) => 2 * i + 1);
    const { kept } = await fillBatch(easy, 4, probeOf(calls), { easyThreshold: 0.9, keepProbability: 0, rng: new Rng(1) });
    expect(kept).toEqual([]);
    expect(calls.length).toBe(MAX_FILL_ROUNDS);
    const short = await fillBatch([0, 1, 2], 4, probeOf([]), { easyThreshold: 0.9, keepProbability: 0, rng: new Rng(1) });
    expect(short.kept.map((k) => k.id)).toEqual([0, 2]);
  });
});

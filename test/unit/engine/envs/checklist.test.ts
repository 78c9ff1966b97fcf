import { describe, expect, it } from 'vitest';
import { argsEqual, ChecklistError, communicated, normaliseText, parseNumber, scoreChecklist } from '../../../../electron/engine/envs/checklist';
import type { ChecklistItem, EpisodeTranscript } from '../../../../electron/engine/envs/types';

function transcript(p: Partial<EpisodeTranscript>): EpisodeTranscript {
  return { calls: [], answer: null, messages: [], formatErrors: 0, ...p };
}

const lookup: ChecklistItem[] = [
  { kind: 'call', weight: 1, name: 'find_user_id_by_name_zip', args: { first_name: 'Yusuf', last_name: 'Rossi', zip: '19122' } },
  { kind: 'call', weight: 1, name: 'get_order_details', args: { order_id: '#W2378156' } },
  { kind: 'no-call', weight: 1, name: 'cancel_pending_order' },
  { kind: 'answer', weight: 2, expected: ['delivered'] },
];

describe('scoreChecklist', () => {
  it('scores every item passed as 1', () => {
    const t = transcript({
      calls: [
        { name: 'find_user_id_by_name_zip', arguments: { first_name: 'yusuf', last_name: ' Rossi ', zip: '19122' } },
        { name: 'get_order_details', arguments: { order_id: '#w2378156' } },
      ],
      answer: 'Delivered.',
    });
    const r = scoreChecklist(lookup, t);
    expect(r.score).toBe(1);
    expect(r.items.every((i) => i.passed)).toBe(true);
    expect(r.formatError).toBe(false);
  });

  it('weights the passed items: wrong order id and wrong answer → (1 + 1) / 5', () => {
    const t = transcript({
      calls: [
        { name: 'find_user_id_by_name_zip', arguments: { first_name: 'Yusuf', last_name: 'Rossi', zip: '19122' } },
        { name: 'get_order_details', arguments: { order_id: '#W0000000' } },
      ],
      answer: 'pending',
    });
    const r = scoreChecklist(lookup, t);
    expect(r.score).toBeCloseTo(2 / 5, 12);
    expect(r.items.map((i) => i.passed)).toEqual([true, false, true, false]);
    expect(r.items[1].detail).toBe('get_order_details called with {"order_id":"#W0000000"}');
    expect(r.items[3].detail).toBe('answered "pending"');
  });

  it('a forbidden call fails the no-call item: (1 + 1 + 2) / 5', () => {
    const t = transcript({
      calls: [
        { name: 'find_user_id_by_name_zip', arguments: { first_name: 'Yusuf', last_name: 'Rossi', zip: '19122' } },
        { name: 'get_order_details', arguments: { order_id: '#W2378156' } },
        { name: 'cancel_pending_order', arguments: { order_id: '#W2378156', reason: 'no longer needed' } },
      ],
      answer: 'delivered',
    });
    expect(scoreChecklist(lookup, t).score).toBeCloseTo(4 / 5, 12);
  });

  it('any format error scores 0 but keeps the breakdown', () => {
    const t = transcript({ calls: [{ name: 'get_order_details', arguments: { order_id: '#W2378156' } }], answer: 'delivered', formatErrors: 1 });
    const r = scoreChecklist(lookup, t);
    expect(r.score).toBe(0);
    expect(r.formatError).toBe(true);
    expect(r.items.filter((i) => i.passed).length).toBe(3);
  });

  it('no answer fails answer items; an empty transcript passes only no-call items', () => {
    const r = scoreChecklist(lookup, transcript({}));
    expect(r.score).toBeCloseTo(1 / 5, 12);
    expect(r.items[3].detail).toBe('no final answer');
  });

  it('numeric answers within tolerance, and set answers in any order', () => {
    const items: ChecklistItem[] = [
      { kind: 'answer', weight: 1, expected: [54.04], match: 'numeric', tolerance: 0.01 },
      { kind: 'answer', weight: 1, expected: [['red', 'blue', 'green']], match: 'set' },
    ];
    expect(scoreChecklist([items[0]], transcript({ answer: '$54.045' })).score).toBe(1);
    expect(scoreChecklist([items[0]], transcript({ answer: '54.10' })).score).toBe(0);
    expect(scoreChecklist([items[0]], transcript({ answer: 'about fifty' })).score).toBe(0);
    expect(scoreChecklist([items[1]], transcript({ answer: 'Green, red and BLUE' })).score).toBe(1);
    expect(scoreChecklist([items[1]], transcript({ answer: 'green, red' })).score).toBe(0);
  });

  it('exact answers are case-sensitive; any of several expected answers passes', () => {
    expect(scoreChecklist([{ kind: 'answer', weight: 1, expected: ['ABC'], match: 'exact' }], transcript({ answer: 'abc' })).score).toBe(0);
    expect(scoreChecklist([{ kind: 'answer', weight: 1, expected: ['yes', 'no'] }], transcript({ answer: 'No' })).score).toBe(1);
  });

  it('communicate items search messages and the answer, case-insensitive, commas removed', () => {
    const item: ChecklistItem = { kind: 'communicate', weight: 1, text: '1,093.34' };
    expect(scoreChecklist([item], transcript({ messages: ['Your refund is $1093.34 in total'] })).score).toBe(1);
    expect(scoreChecklist([item], transcript({ answer: 'Refund: 1093.34' })).score).toBe(1);
    expect(scoreChecklist([item], transcript({ messages: ['Refund: 1093.3'] })).score).toBe(0);
  });

  it('rejects unscorable checklists with a typed error', () => {
    expect(() => scoreChecklist([], transcript({}))).toThrow(ChecklistError);
    expect(() => scoreChecklist([{ kind: 'no-call', weight: 0, name: 'x' }], transcript({}))).toThrow(/positive weight/);
    expect(() => scoreChecklist([{ kind: 'no-call', weight: Number.NaN, name: 'x' }], transcript({}))).toThrow(/weights must be finite/);
  });
});

describe('normalisation helpers', () => {
  it('normaliseText', () => {
    expect(normaliseText('  "The  Order, Shipped."  ')).toBe('the order shipped');
  });
  it('parseNumber', () => {
    expect(parseNumber('$1,234.50')).toBe(1234.5);
    expect(parseNumber('12 apples')).toBeNull();
  });
  it('argsEqual compares numbers with numeric strings, arrays in order, objects by key', () => {
    expect(argsEqual('12', 12)).toBe(true);
    expect(argsEqual(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(argsEqual({ city: 'Austin ', zip: '78701' }, { city: 'austin', zip: '78701' })).toBe(true);
    expect(argsEqual({ city: 'Austin', zip: '78701', extra: 1 }, { city: 'Austin', zip: '78701' })).toBe(false);
    expect(argsEqual(undefined, 'x')).toBe(false);
    expect(argsEqual(true, false)).toBe(false);
  });
  it('communicated', () => {
    expect(communicated(['A, B'], 'a b')).toBe(true);
  });
});

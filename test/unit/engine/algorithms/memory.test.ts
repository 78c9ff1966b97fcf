import { describe, expect, it } from 'vitest';
import { buildMemory, summariseRehearsal, type RehearsalTrace } from '../../../../electron/engine/algorithms/memory';

const call = (order_id: string) => ({ kind: 'calls' as const, calls: [{ name: 'get_order_details', arguments: { order_id } }] });
const answer = (text: string) => ({ kind: 'answer' as const, text });
const instruction = 'What is the status of order #W1?';

const good = (status: string, logprobs: number[]): RehearsalTrace => ({
  instruction,
  turns: [
    { action: call('#W1'), observation: `{"order_id":"#W1","status":"${status}"}` },
    { action: answer(status), observation: null },
  ],
  logprobs,
});

describe('summariseRehearsal', () => {
  it('records plan, predicted observations, answer and mean-logprob confidence', () => {
    const s = summariseRehearsal(good('pending', [-1, -2, -3]));
    expect(s.plan).toEqual([{ name: 'get_order_details', arguments: { order_id: '#W1' } }]);
    expect(s.predictedObservations).toEqual(['{"order_id":"#W1","status":"pending"}']);
    expect(s.answer).toBe('pending');
    expect(s.confidence).toBe(-2);
    expect(s.problems).toEqual([]);
  });

  it('flags format errors, predicted errors, unseen argument values and a missing answer', () => {
    const s = summariseRehearsal({
      instruction,
      turns: [
        { action: { kind: 'invalid', error: 'Error: no <tool_call> or <answer> in the action', raw: 'hi' }, observation: null },
        { action: call('#W9'), observation: 'Error: order not found' },
      ],
      logprobs: [-0.5],
    });
    expect(s.problems.some((p) => p.includes('format error'))).toBe(true);
    expect(s.problems.some((p) => p.includes('"#W9"'))).toBe(true);
    expect(s.problems.some((p) => p.includes('predicted an error'))).toBe(true);
    expect(s.problems).toContain('no final answer');
  });
});

describe('buildMemory', () => {
  it('takes the majority answer and plan; ties go to the more confident rehearsal', () => {
    const m = buildMemory([good('pending', [-3]), good('delivered', [-0.1]), good('pending', [-2])]);
    expect(m.rehearsals).toHaveLength(3);
    expect(m.consensus.answer).toBe('pending');
    expect(m.consensus.plan).toEqual([{ name: 'get_order_details', arguments: { order_id: '#W1' } }]);
    const tie = buildMemory([good('pending', [-3]), good('delivered', [-0.1])]);
    expect(tie.consensus.answer).toBe('delivered');
  });

  it('rehearsals with format errors do not vote on the plan', () => {
    const broken: RehearsalTrace = {
      instruction,
      turns: [{ action: { kind: 'invalid', error: 'Error: x', raw: 'x' }, observation: null }],
      logprobs: [-1],
    };
    const m = buildMemory([broken, broken, good('pending', [-1])]);
    expect(m.consensus.plan).toHaveLength(1);
    expect(m.consensus.answer).toBe('pending');
  });

  it('an empty set of rehearsals gives an empty consensus', () => {
    expect(buildMemory([])).toEqual({ rehearsals: [], consensus: { plan: [], answer: null }, notes: '' });
  });
});

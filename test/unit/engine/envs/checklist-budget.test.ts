import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { ChecklistError, DEFAULT_CALL_BUDGET, scoreChecklist } from '../../../../electron/engine/envs/checklist';
import { TranscriptRecorder } from '../../../../electron/engine/envs/episode-base';
import type { ChecklistItem, EpisodeTranscript, ToolCall } from '../../../../electron/engine/envs/types';

const items: ChecklistItem[] = [
  { kind: 'call', weight: 1, name: 'get_order_details', args: { order_id: '#W2378156' } },
  { kind: 'no-call', weight: 1, name: 'cancel_pending_order' },
  { kind: 'answer', weight: 1, expected: ['delivered'] },
];
const right: ToolCall = { name: 'get_order_details', arguments: { order_id: '#W2378156' } };
const guesses = (n: number): ToolCall[] => Array.from({ length: n }, (_, i) => ({ name: 'get_order_details', arguments: { order_id: `#W${1000000 + i}` } }));

/** The transcript as rollouts and the oracle record it: one action per act, then its calls. */
function record(acts: ToolCall[][], answer = 'delivered'): EpisodeTranscript {
  const r = new TranscriptRecorder();
  for (const calls of acts) {
    r.recordAction({ kind: 'calls', calls });
    calls.forEach((c) => r.recordCall(c));
  }
  r.recordAction({ kind: 'answer', text: answer });
  return r.snapshot();
}

describe('checklist call budget', () => {
  it('scores a single right call as before', () => {
    const t = record([[right]]);
    expect(t.callActs).toEqual([1]);
    expect(scoreChecklist(items, t).score).toBe(1);
    const { callActs: _, ...withoutActs } = t;
    expect(scoreChecklist(items, withoutActs).score).toBe(1);
  });

  it('scores the right call buried among many wrong ones in one act less than alone', () => {
    const alone = scoreChecklist(items, record([[right]])).score;
    const buried = scoreChecklist(items, record([[...guesses(9), right]]));
    expect(buried.score).toBeLessThan(alone);
    expect(buried.score).toBeCloseTo(2 / 3, 12);
    expect(buried.items[0]).toMatchObject({ passed: false, detail: 'get_order_details matched only in an act of 10 calls, over the budget of 4' });
    // within the budget, and spread over acts, the guesses cost nothing: the budget is per act
    expect(scoreChecklist(items, record([[...guesses(3), right]])).score).toBe(1);
    expect(scoreChecklist(items, record([...guesses(9).map((g) => [g]), [right]])).score).toBe(1);
  });

  it('the budget knob changes the result', () => {
    const t = record([[...guesses(5), right]]);
    expect(scoreChecklist(items, t).score).toBeCloseTo(2 / 3, 12);
    expect(scoreChecklist(items, t, { callBudget: 6 }).score).toBe(1);
    expect(scoreChecklist(items, record([[guesses(1)[0], right]]), { callBudget: 1 }).score).toBeCloseTo(2 / 3, 12);
    expect(() => scoreChecklist(items, t, { callBudget: 0 })).toThrow(ChecklistError);
  });

  it('an over-budget act still fails no-call items', () => {
    const r = scoreChecklist(items, record([[...guesses(9), { name: 'cancel_pending_order', arguments: {} }]]));
    expect(r.items[1].passed).toBe(false);
  });

  it('never falls below the checklist’s own call items (parallel gold in one act)', () => {
    const parallel = guesses(6);
    const wanted: ChecklistItem[] = parallel.map((c) => ({ kind: 'call', weight: 1, name: c.name, args: c.arguments }));
    expect(scoreChecklist(wanted, record([parallel])).score).toBe(1);
    expect(scoreChecklist(wanted, record([[...parallel, right]])).score).toBe(0);
  });

  it('the run config default is the scorer’s', () => {
    expect(RunConfig.parse({ env: 'x' }).rollout.callBudget).toBe(DEFAULT_CALL_BUDGET);
  });
});

import { describe, expect, it } from 'vitest';
import { describeSetting, formatPoints, rehearsalGain, successBySetting, type StoredEval } from '../../../../renderer/src/views/evaluate/eval-table';

function evaluation(patch: Partial<StoredEval>): StoredEval {
  return {
    id: 1,
    createdAt: 1000,
    runId: 'run-a',
    step: 10,
    env: 'retail',
    split: 'heldout',
    rehearsals: 0,
    mode: 'parallel',
    commit: 'prompt',
    memories: 'rehearse',
    tasks: 8,
    success: 0.25,
    meanScore: 0.5,
    invalidActionRate: 0.1,
    envCallsPerTask: 3,
    tokensPerTask: 120,
    wallMs: 4000,
    fidelity: null,
    perTask: [],
    ...patch,
  };
}

describe('describeSetting', () => {
  it('names the split and how the policy rehearsed', () => {
    expect(describeSetting(evaluation({}))).toBe('held-out · no rehearsal');
    expect(describeSetting(evaluation({ memories: 'stored', commit: 'plan' }))).toBe('held-out · stored memories, following the plan');
    expect(describeSetting(evaluation({ memories: 'stored', rehearsals: 2 }))).toBe('held-out · stored memories (2 parallel rehearsals where none), memory in the prompt');
    expect(describeSetting(evaluation({ split: 'ood', rehearsals: 4, mode: 'sequential', commit: 'plan' }))).toBe('OOD · 4 sequential rehearsals, following the plan');
    expect(describeSetting(evaluation({ rehearsals: 1 }))).toBe('held-out · 1 parallel rehearsal, memory in the prompt');
  });
});

describe('rehearsalGain', () => {
  const baselineOld = evaluation({ id: 1, createdAt: 1, success: 0.125 });
  const baselineNew = evaluation({ id: 2, createdAt: 2, success: 0.25 });
  const otherStep = evaluation({ id: 3, createdAt: 3, step: 20, success: 0.9 });
  const otherSplit = evaluation({ id: 4, createdAt: 4, split: 'ood', success: 0.9 });
  const rehearsed = evaluation({ id: 5, createdAt: 5, rehearsals: 4, success: 0.625 });
  const all = [baselineOld, baselineNew, otherStep, otherSplit, rehearsed];

  it('compares with the newest evaluation without rehearsal of the same run, checkpoint and split', () => {
    expect(rehearsalGain(rehearsed, all)).toBeCloseTo(0.375, 12);
  });

  it('is null without rehearsal or without a matching baseline', () => {
    expect(rehearsalGain(baselineNew, all)).toBeNull();
    expect(rehearsalGain(rehearsed, [otherStep, otherSplit, rehearsed])).toBeNull();
    expect(rehearsalGain(evaluation({ rehearsals: 2, tasks: 3 }), all)).toBeNull();
  });
});

describe('formatPoints', () => {
  it('signs percentage points and rounds to a tenth', () => {
    expect(formatPoints(0.375)).toBe('+37.5 pp');
    expect(formatPoints(-0.03)).toBe('−3 pp');
    expect(formatPoints(0.00001)).toBe('±0 pp');
    expect(formatPoints(null)).toBe('—');
  });
});

describe('successBySetting', () => {
  it('draws one line per setting for the run, by step, newest result per step', () => {
    const items = [
      evaluation({ id: 1, createdAt: 1, step: 20, success: 0.5 }),
      evaluation({ id: 2, createdAt: 2, step: 10, success: 0.25 }),
      evaluation({ id: 3, createdAt: 3, step: 20, success: 0.75 }),
      evaluation({ id: 4, createdAt: 4, step: 10, rehearsals: 2, success: 0.5 }),
      evaluation({ id: 5, createdAt: 5, step: 10, runId: 'run-b', success: 1 }),
    ];
    expect(successBySetting(items, 'run-a')).toEqual([
      { label: 'held-out · 2 parallel rehearsals, memory in the prompt', steps: [10], values: [0.5] },
      { label: 'held-out · no rehearsal', steps: [10, 20], values: [0.25, 0.75] },
    ]);
    expect(successBySetting(items, 'run-c')).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { heldoutResult } from '../../../../renderer/src/views/dashboard/result';
import { configDiff } from '../../../../renderer/src/views/dashboard/config-diff';
import { preselectedRun } from '../../../../renderer/src/views/dashboard/preselect';

describe('heldoutResult', () => {
  it('reads before (step 0) → after (the latest) and the best kept checkpoint, the earliest of equals', () => {
    const success = { steps: [0, 250, 500, 620], values: [0, 0.42, 0.6, 0.58] };
    expect(heldoutResult(success, [250, 500, 620])).toEqual({
      before: { step: 0, success: 0 },
      after: { step: 620, success: 0.58 },
      best: { step: 500, success: 0.6 },
      evaluations: 3,
    });
    // The best step's checkpoint was pruned: the best kept one is named instead.
    expect(heldoutResult(success, [250, 620])!.best).toEqual({ step: 620, success: 0.58 });
    expect(heldoutResult({ steps: [0, 10, 20], values: [0.1, 0.5, 0.5] }, [10, 20])!.best).toEqual({ step: 10, success: 0.5 });
  });

  it('claims nothing before there is an evaluation after training began, and none of a step without a checkpoint', () => {
    expect(heldoutResult(undefined, [])).toBeNull();
    expect(heldoutResult({ steps: [0], values: [0.2] }, [])).toBeNull();
    // A run from before step-0 evaluations: no "before", still an "after".
    expect(heldoutResult({ steps: [100, 200], values: [0.3, 0.4] }, [])).toEqual({ before: null, after: { step: 200, success: 0.4 }, best: null, evaluations: 2 });
    // A step-0 figure is never the best: it has no checkpoint to use.
    expect(heldoutResult({ steps: [0, 5], values: [0.9, 0.1] }, [0, 5])!.best).toEqual({ step: 5, success: 0.1 });
  });
});

describe('preselectedRun', () => {
  const runs = [
    { id: 'old', status: 'completed' as const, createdAt: 1 },
    { id: 'training', status: 'running' as const, createdAt: 2 },
    { id: 'newest', status: 'created' as const, createdAt: 3 },
  ];
  it('opens the run last watched, else the one training, else the newest', () => {
    expect(preselectedRun(runs, 'old')).toBe('old');
    expect(preselectedRun(runs, 'deleted-since')).toBe('training');
    expect(preselectedRun(runs.filter((r) => r.id !== 'training'), null)).toBe('newest');
    expect(preselectedRun([], null)).toBeNull();
  });
});

describe('configDiff', () => {
  it('lists only the knobs that differ, with each run’s value, leaving the name out', () => {
    const a = { name: 'a', env: 'retail', steps: 20, rollout: { k: 4, temperature: 0.8 }, model: { preset: 'tiny' } };
    const b = { name: 'b', env: 'retail', steps: 40, rollout: { k: 4, temperature: 1 }, model: { imported: 'qwen' } };
    expect(configDiff([a, b])).toEqual([
      { path: 'model.imported', values: ['—', 'qwen'] },
      { path: 'model.preset', values: ['tiny', '—'] },
      { path: 'rollout.temperature', values: ['0.8', '1'] },
      { path: 'steps', values: ['20', '40'] },
    ]);
    expect(configDiff([a, { ...a, name: 'other' }])).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../../electron/contract';
import type { Task } from '../../../../electron/engine/envs/types';
import { demonstrationPlan } from '../../../../electron/engine/algorithms/loops/sft';

const tasks = Array.from({ length: 1000 }, (_, i) => ({ id: `train-${i}` }) as Task);
const ids = (list: readonly Task[]) => list.map((t) => t.id);
const sft30 = [{ algo: 'sft' as const, first: 1, last: 30 }];
const imported = (extra: Partial<RunConfigInput> = {}) =>
  RunConfig.parse({ env: 'bfcl', model: { imported: 'smollm2' }, algo: 'sft', steps: 30, rollout: { k: 4, tasksPerStep: 1 }, ...extra });

describe('demonstrationPlan', () => {
  it("records an imported model's demonstrations in a seeded order until its SFT stages' rows fit", () => {
    const plan = demonstrationPlan(imported(), tasks, sft30);
    expect(plan.want).toBe(120);
    // Every task, once, in an order that is not the list's (a sample across families), the same for a resumed run.
    expect(new Set(ids(plan.order))).toEqual(new Set(ids(tasks)));
    expect(ids(plan.order).slice(0, 120)).not.toEqual(ids(tasks).slice(0, 120));
    expect(ids(demonstrationPlan(imported(), tasks, sft30).order)).toEqual(ids(plan.order));
    expect(ids(demonstrationPlan(imported({ seed: 1 }), tasks, sft30).order)).not.toEqual(ids(plan.order));
    // RL stages draw no demonstrations; two SFT stages add up.
    expect(demonstrationPlan(imported(), tasks, [...sft30, { algo: 'envace', first: 31, last: 40 }, { algo: 'sft', first: 41, last: 50 }]).want).toBe(160);
  });

  it('records every task, in order, where the rows cover them, for a from-scratch model (its tokenizer reads them all), for a file, and for the simulator prompt', () => {
    const all = { order: tasks, want: null };
    expect(demonstrationPlan(imported(), tasks, [{ algo: 'sft', first: 1, last: 300 }])).toEqual(all);
    expect(demonstrationPlan(RunConfig.parse({ env: 'bfcl', model: { preset: 'tiny' }, algo: 'sft', steps: 30, rollout: { k: 4, tasksPerStep: 1 } }), tasks, sft30)).toEqual(all);
    expect(demonstrationPlan(imported({ sft: { demonstrations: 'file', demonstrationsFile: '/x.jsonl' } }), tasks, sft30)).toEqual(all);
    expect(demonstrationPlan(imported({ rollout: { k: 4, tasksPerStep: 1, rehearsePrompt: 'simulator' } }), tasks, sft30)).toEqual(all);
  });
});

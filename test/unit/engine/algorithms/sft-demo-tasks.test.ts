import { describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../../electron/contract';
import type { Task } from '../../../../electron/engine/envs/types';
import { demonstrationTasks } from '../../../../electron/engine/algorithms/loops/sft';

const tasks = Array.from({ length: 1000 }, (_, i) => ({ id: `train-${i}` }) as Task);
const sft30 = [{ algo: 'sft' as const, first: 1, last: 30 }];
const imported = (extra: Partial<RunConfigInput> = {}) =>
  RunConfig.parse({ env: 'bfcl', model: { imported: 'smollm2' }, algo: 'sft', steps: 30, rollout: { k: 4, tasksPerStep: 1 }, ...extra });

describe('demonstrationTasks', () => {
  it("records only as many distinct tasks as an imported model's SFT stages draw rows, a seeded sample", () => {
    const picked = demonstrationTasks(imported(), tasks, sft30);
    expect(picked).toHaveLength(120);
    expect(new Set(picked.map((t) => t.id)).size).toBe(120);
    // A sample across the list, not its head; the same for a resumed run of the same config.
    expect(picked.map((t) => t.id)).not.toEqual(tasks.slice(0, 120).map((t) => t.id));
    expect(demonstrationTasks(imported(), tasks, sft30)).toEqual(picked);
    expect(demonstrationTasks(imported({ seed: 1 }), tasks, sft30)).not.toEqual(picked);
    // RL stages draw no demonstrations; two SFT stages add up.
    expect(demonstrationTasks(imported(), tasks, [...sft30, { algo: 'envace', first: 31, last: 40 }, { algo: 'sft', first: 41, last: 50 }])).toHaveLength(160);
  });

  it('keeps every task where the rows cover them, for a from-scratch model (its tokenizer reads them all), for a file, and for the simulator prompt', () => {
    expect(demonstrationTasks(imported(), tasks, [{ algo: 'sft', first: 1, last: 300 }])).toBe(tasks);
    expect(demonstrationTasks(RunConfig.parse({ env: 'bfcl', model: { preset: 'tiny' }, algo: 'sft', steps: 30, rollout: { k: 4, tasksPerStep: 1 } }), tasks, sft30)).toBe(tasks);
    expect(demonstrationTasks(imported({ sft: { demonstrations: 'file', demonstrationsFile: '/x.jsonl' } }), tasks, sft30)).toBe(tasks);
    expect(demonstrationTasks(imported({ rollout: { k: 4, tasksPerStep: 1, rehearsePrompt: 'simulator' } }), tasks, sft30)).toBe(tasks);
  });
});

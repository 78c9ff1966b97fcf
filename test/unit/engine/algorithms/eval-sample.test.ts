// `eval --limit N` runs a seeded, family-stratified sample: every family its proportional share of N,
// the same tasks for the same seed, and the split's order kept.
import { describe, expect, it } from 'vitest';
import { sampleTasks, taskFamily } from '../../../../electron/engine/algorithms/eval-sample';
import type { Task } from '../../../../electron/engine/envs/types';

const task = (id: string, meta?: Task['meta']): Task => ({
  id,
  env: 'x',
  split: 'heldout',
  instruction: id,
  gold: { calls: [], answer: null },
  checklist: [],
  maxTurns: 1,
  ...(meta ? { meta } : {}),
});

// bfcl's held-out split as its categories list it: one family first, in a long run.
const split = [
  ...Array.from({ length: 400 }, (_, i) => task(`simple-${i}`, { category: 'simple_python' })),
  ...Array.from({ length: 200 }, (_, i) => task(`multiple-${i}`, { category: 'multiple' })),
  ...Array.from({ length: 240 }, (_, i) => task(`irrelevance-${i}`, { category: 'irrelevance' })),
];

const counts = (tasks: Task[]) => tasks.reduce<Record<string, number>>((c, t) => ({ ...c, [taskFamily(t)]: (c[taskFamily(t)] ?? 0) + 1 }), {});

describe('sampleTasks', () => {
  it('gives every family its proportional share of the limit, not the first N tasks', () => {
    const sample = sampleTasks(split, 40, 0);
    expect(sample).toHaveLength(40);
    // 40 × 400/840 = 19.05, 40 × 200/840 = 9.52, 40 × 240/840 = 11.43: the largest remainder (multiple) gets the last one.
    expect(counts(sample)).toEqual({ simple_python: 19, multiple: 10, irrelevance: 11 });
  });

  it('is the same for the same seed, another for another seed, and keeps the split order', () => {
    const ids = (seed: number) => sampleTasks(split, 40, seed).map((t) => t.id);
    expect(ids(3)).toEqual(ids(3));
    expect(ids(4)).not.toEqual(ids(3));
    const at = new Map(split.map((t, i) => [t.id, i]));
    const positions = ids(3).map((id) => at.get(id)!);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(ids(3)).size).toBe(40);
  });

  it('reads meta.family, falls back to one family, and returns every task when the limit covers them', () => {
    expect(taskFamily(task('a', { family: 'lookup', category: 'other' }))).toBe('lookup');
    expect(taskFamily(task('b'))).toBe('');
    const plain = Array.from({ length: 10 }, (_, i) => task(`t${i}`));
    expect(sampleTasks(plain, 4, 1)).toHaveLength(4);
    expect(sampleTasks(plain, undefined, 1)).toEqual(plain);
    expect(sampleTasks(plain, 10, 1)).toEqual(plain);
    expect(() => sampleTasks(plain, 0, 1)).toThrow(/positive integer/);
  });
});

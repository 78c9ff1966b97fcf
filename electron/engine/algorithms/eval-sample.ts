/**
 * Which tasks an evaluation with `--limit N` runs: a seeded sample stratified by task family, so
 * that N tasks stand for the whole split. Taking the first N instead measured one family only (bfcl's
 * held-out split lists its 400 simple_python items first, so `--limit 40` never saw irrelevance,
 * multiple or parallel items).
 *
 * Each family gets its proportional share of N (largest remainder, ties to the larger family), so the
 * sample's mean estimates the split's; within a family the tasks are a seeded shuffle. The sample
 * keeps the split's order, so the same seed and N give the same tasks on every machine.
 */
import type { Task } from '../envs/types';
import { deriveSeed, Rng } from '../random';

/** A task's family: the env's own label (`meta.family`, bfcl's `meta.category`), or one family for all. */
export function taskFamily(task: Task): string {
  const label = task.meta?.family ?? task.meta?.category;
  return typeof label === 'string' ? label : '';
}

/** `limit` tasks of `tasks`, stratified by family and seeded; all of them when `limit` is absent or not smaller. */
export function sampleTasks(tasks: readonly Task[], limit: number | undefined, seed: number): Task[] {
  if (limit === undefined || limit >= tasks.length) return tasks.slice();
  if (!(Number.isInteger(limit) && limit > 0)) throw new Error(`an evaluation limit must be a positive integer (got ${limit})`);
  const families = new Map<string, Task[]>();
  for (const t of tasks) {
    const key = taskFamily(t);
    const members = families.get(key);
    if (members) members.push(t);
    else families.set(key, [t]);
  }
  const groups = [...families.entries()].map(([key, members]) => ({ key, members, exact: (limit * members.length) / tasks.length }));
  const share = new Map(groups.map((g) => [g.key, Math.floor(g.exact)]));
  let left = limit - [...share.values()].reduce((a, b) => a + b, 0);
  const byRemainder = [...groups].sort((a, b) => b.exact - Math.floor(b.exact) - (a.exact - Math.floor(a.exact)) || b.members.length - a.members.length);
  for (const g of byRemainder) {
    if (left === 0) break;
    share.set(g.key, share.get(g.key)! + 1);
    left--;
  }
  const chosen = new Set<string>();
  for (const g of groups) {
    const order = new Rng(deriveSeed(seed, 'eval-sample', g.key)).shuffle(g.members);
    for (const t of order.slice(0, share.get(g.key))) chosen.add(t.id);
  }
  return tasks.filter((t) => chosen.has(t.id));
}

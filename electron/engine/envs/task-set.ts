import { SPLITS, type Split, type Task, type TaskRef } from './types';

/**
 * A generated task set: `perSplit` tasks per split, built on first use from a generator, with
 * lookups by id (ids carry their split as the second dash-separated part, `env-split-n`).
 */
export class GeneratedTaskSet {
  private readonly cache = new Map<Split, Task[]>();

  constructor(
    private readonly perSplit: number,
    private readonly generate: (split: Split, index: number) => Task,
    private readonly notFound: (id: string) => Error,
  ) {}

  all(split: Split): Task[] {
    let tasks = this.cache.get(split);
    if (!tasks) {
      tasks = Array.from({ length: this.perSplit }, (_, i) => this.generate(split, i));
      this.cache.set(split, tasks);
    }
    return tasks;
  }

  refs(split: Split): TaskRef[] {
    return this.all(split).map((t) => ({ id: t.id, split: t.split, instruction: t.instruction }));
  }

  find(id: string): Task {
    const split = id.split('-')[1] as Split;
    const found = SPLITS.includes(split) ? this.all(split).find((t) => t.id === id) : undefined;
    if (!found) throw this.notFound(id);
    return found;
  }
}

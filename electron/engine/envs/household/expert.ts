/**
 * The replay expert shared by the environments whose gold calls are fixed per task (household,
 * files, bfcl): it issues the gold calls one per turn, then answers. Because those worlds are
 * deterministic for a task, replaying the plan is the scripted solution.
 */
import type { Action, ExpertPolicy, Task } from '../types';

/** What the expert answers when the task needs no particular answer, just an end to the episode. */
export const EXPERT_DONE = 'Done.';

export function replayExpert(task: Task, opts: { callsPerTurn?: number } = {}): ExpertPolicy {
  const perTurn = Math.max(1, opts.callsPerTurn ?? 1);
  let next = 0;
  return {
    next(): Action {
      if (next < task.gold.calls.length) {
        const calls = task.gold.calls.slice(next, next + perTurn);
        next += calls.length;
        return { kind: 'calls', calls };
      }
      return { kind: 'answer', text: task.gold.answer ?? EXPERT_DONE };
    },
  };
}

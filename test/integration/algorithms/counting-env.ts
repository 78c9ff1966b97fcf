// Wraps a ToolEnv and counts every crossing of the env boundary (resets and steps).
import type { Episode, ToolEnv } from '../../../electron/engine/envs/types';

export function countingEnv(inner: ToolEnv): ToolEnv & { counts: { resets: number; steps: number } } {
  const counts = { resets: 0, steps: 0 };
  return {
    id: inner.id,
    description: inner.description,
    track: inner.track,
    counts,
    tools: () => inner.tools(),
    tasks: (split) => inner.tasks(split),
    task: (id) => inner.task(id),
    expert: inner.expert?.bind(inner),
    async reset(task, seed): Promise<Episode> {
      counts.resets++;
      const ep = await inner.reset(task, seed);
      return {
        task: ep.task,
        initialObservation: ep.initialObservation,
        step: (a) => {
          counts.steps++;
          return ep.step(a);
        },
        finalCheck: () => ep.finalCheck(),
        cost: () => ep.cost(),
        close: () => ep.close(),
      };
    },
  };
}

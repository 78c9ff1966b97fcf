import type { RunConfig } from '../../contract';

// Kept apart from train.ts so the engine's main thread (reality checks, task lists, pre-flight) can
// use it without loading the model stack.
/** Env options derived from the run's world size, mode and task mix, for the envs that have them. */
export function envOptions(c: RunConfig): Record<string, unknown> {
  // Defaults are left out, so a run that does not touch the knobs builds (and caches) the very env it always did.
  const world = { ...(c.worldMode !== 'fixed' ? { worldMode: c.worldMode } : {}), ...(c.taskMix !== 'all' ? { taskMix: c.taskMix } : {}) };
  if (c.env === 'retail') {
    const counts = { ...(c.trainTasks !== undefined ? { train: c.trainTasks } : {}), ...(c.heldoutTasks !== undefined ? { heldout: c.heldoutTasks } : {}) };
    return { worldSize: Math.max(5, c.worldSize), seed: c.seed, ...world, ...(Object.keys(counts).length ? { counts } : {}), ...(c.layout !== 'fixed' ? { layout: c.layout } : {}) };
  }
  if (c.env === 'household') return { objects: Math.max(2, c.worldSize), ...world };
  return {};
}


import type { RunConfig } from '../../contract';

// Kept apart from train.ts so the engine's main thread (reality checks, task lists, pre-flight) can
// use it without loading the model stack.
/** Env options derived from the run's world size, for the envs that have one. */
export function envOptions(c: RunConfig): Record<string, unknown> {
  if (c.env === 'retail') return { worldSize: Math.max(5, c.worldSize), seed: c.seed };
  if (c.env === 'household') return { objects: Math.max(2, c.worldSize) };
  return {};
}

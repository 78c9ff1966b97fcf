import { RunConfig, type Run } from '../../electron/contract';

/** A stored run as runs.list answers it, with the checkpoints a test needs. */
export function makeRun(id: string, patch: Partial<Run> & { checkpointSteps?: number[] } = {}): Run {
  const { checkpointSteps = [], ...rest } = patch;
  const config = RunConfig.parse({ env: rest.env ?? 'mock', name: id });
  return {
    id,
    name: id,
    env: 'mock',
    algo: config.algo,
    model: 'preset:tiny',
    status: 'completed',
    config,
    currentStep: checkpointSteps.at(-1) ?? 0,
    totalSteps: config.steps,
    etaMs: null,
    bestHeldoutSuccess: null,
    parentRunId: null,
    parentStep: null,
    error: null,
    createdAt: 1,
    updatedAt: 1,
    startedAt: null,
    finishedAt: null,
    checkpoints: checkpointSteps.map((step) => ({ step, createdAt: 1 })),
    ...rest,
  };
}

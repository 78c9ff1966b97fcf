import fs from 'node:fs';
import { ContractError, RunConfig, type Job, type Run } from '../../contract';
import { ComputeError } from '../compute/client';
import type { EngineServices } from '../system/services';
import { checkpointDir } from './training';

/**
 * Run one compute-worker operation as a queued job (one compute job at a time, cancellable,
 * visible in the jobs list) and hand back its result, or a typed error saying what happened.
 */
export async function computeJob<T>(s: EngineServices, spec: { kind: Job['kind']; label: string; runId?: string }, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  let value: T | undefined;
  let thrown: unknown;
  const job = s.jobs.enqueue({
    ...spec,
    run: async (ctx) => {
      ctx.progress(null, spec.label);
      try {
        value = await work(ctx.signal);
      } catch (error) {
        thrown = error;
        throw error;
      }
    },
  });
  const done = await s.jobs.wait(job.id);
  if (done.state === 'cancelled') throw new ContractError('conflict', `${spec.label} was cancelled`);
  if (done.state === 'failed') {
    // Settings this model or world cannot serve (a prompt longer than the context…) are the
    // caller's to change: say so, instead of calling it an engine fault.
    const byCaller = thrown instanceof ComputeError && (thrown.errorName === 'AlgorithmError' || thrown.errorName === 'OracleError');
    throw new ContractError(byCaller ? 'invalid_input' : 'internal', `${spec.label} failed: ${done.error}`);
  }
  return value as T;
}

/** A run's policy source: its resolved config and one of its checkpoints (default the last). */
export function policySource(s: EngineServices, runId: string, step?: number): { run: Run; step: number; source: { config: RunConfig; checkpointDir: string } } {
  const run = s.store.runs.get(runId);
  if (!run) throw new ContractError('not_found', `no run with id ${runId}`);
  const chosen = step ?? run.checkpoints.at(-1)?.step;
  if (chosen === undefined) throw new ContractError('conflict', `run ${runId} has no checkpoint yet: train it first`);
  if (!run.checkpoints.some((c) => c.step === chosen)) {
    throw new ContractError('not_found', `run ${runId} has no checkpoint at step ${chosen} (checkpoints: ${run.checkpoints.map((c) => c.step).join(', ')})`);
  }
  const dir = s.store.runs.checkpointPath(runId, chosen) ?? checkpointDir(s, runId, chosen);
  if (!fs.existsSync(dir)) throw new ContractError('not_found', `the checkpoint folder of run ${runId} at step ${chosen} is missing (${dir})`);
  return { run, step: chosen, source: { config: run.config, checkpointDir: dir } };
}

import path from 'node:path';
import { ContractError, type Job, type RunConfig } from '../contract';
import { ComputeError } from './compute/client';
import type { TrainEvent } from './compute/protocol';
import { runDir } from './home';
import type { EngineServices } from './services';

export interface StartOptions {
  /** Resume from this checkpoint step of the run itself (exact resume). */
  resumeFromStep?: number;
  /** Fork: start from another run's checkpoint folder. */
  resumeFromDir?: string;
}

/**
 * Queue a training job for a stored run. The loop runs in the compute worker; each finished
 * step comes back here and is written to the store in one transaction, then pushed as events.
 */
export function startTraining(s: EngineServices, runId: string, options: StartOptions = {}): Job {
  const run = s.store.runs.get(runId);
  if (!run) throw new Error(`no run with id ${runId}`);
  s.store.runs.update(runId, { status: 'queued', error: null });
  s.events.emit('run.status', { runId, status: 'queued', error: null });

  return s.jobs.enqueue({
    kind: 'train',
    label: `train ${run.name}`,
    runId,
    run: async (ctx) => {
      const startStep = options.resumeFromStep ?? 0;
      // Steps after the checkpoint are re-run exactly; drop what an interrupted attempt left.
      s.store.db.transaction(() => {
        s.store.metrics.truncateAfter(runId, startStep);
        s.store.rollouts.truncateAfter(runId, startStep);
        s.store.runs.update(runId, { status: 'running', startedAt: Date.now(), finishedAt: null, currentStep: startStep });
      })();
      s.events.emit('run.status', { runId, status: 'running', error: null });
      let etaMs: number | null = null;
      // A step the store refuses (or any bug here) stops the run with that error, never silently.
      const stop = new AbortController();
      const onJobCancel = () => stop.abort(ctx.signal.reason);
      ctx.signal.addEventListener('abort', onJobCancel, { once: true });
      let writeError: Error | null = null;

      const onEvent = (event: TrainEvent) => {
        if (writeError) return;
        try {
          handle(event);
        } catch (error) {
          writeError = error instanceof Error ? error : new Error(String(error));
          stop.abort(writeError);
        }
      };

      const handle = (event: TrainEvent) => {
        if (event.type === 'progress') {
          ctx.progress(event.fraction, event.phase);
          etaMs = s.jobs.get(ctx.jobId)?.etaMs ?? null;
          const current = s.store.runs.get(runId);
          s.events.emit('run.progress', {
            runId,
            step: current?.currentStep ?? 0,
            totalSteps: run.totalSteps,
            fraction: Math.min(1, Math.max(0, event.fraction)),
            etaMs,
            phase: event.phase,
          });
        } else if (event.type === 'log') {
          s.events.emit('run.log', { runId, level: event.level, message: event.message, time: Date.now() });
        } else {
          const ids = s.store.db.transaction(() => {
            const heldout = event.metrics['eval/success'];
            const best = s.store.runs.get(runId)?.bestHeldoutSuccess ?? null;
            const bestHeldoutSuccess = heldout !== undefined && (best === null || heldout > best) ? heldout : undefined;
            const written = s.store.writeStep({ runId, step: event.step, metrics: event.metrics, rollouts: event.rollouts, run: { etaMs, bestHeldoutSuccess } });
            if (event.checkpoint) s.store.runs.addCheckpoint(runId, event.checkpoint.step, event.checkpoint.path);
            return written;
          })();
          s.events.emit('run.metrics', { runId, step: event.step, values: event.metrics });
          ids.forEach((rolloutId, i) => {
            const rollout = event.rollouts[i];
            s.events.emit('run.trajectory', { runId, step: event.step, rolloutId, mode: rollout.mode, reward: rollout.reward });
          });
        }
      };

      try {
        await s.compute.stream(
          'train',
          {
            config: run.config,
            runDir: runDir(s.paths, runId),
            modelsDir: s.paths.models,
            resumeFromStep: options.resumeFromStep,
            resumeFromDir: options.resumeFromDir,
            initFromDir: run.config.initFrom ? initFromCheckpoint(s, run.config.initFrom).dir : undefined,
          },
          onEvent,
          stop.signal,
        );
        if (writeError) throw writeError;
        // The loop stops cleanly at a step boundary when cancelled: that is not a completion.
        finish(ctx.signal.aborted ? 'cancelled' : 'completed', null);
      } catch (error) {
        const failure = writeError ?? (error as Error);
        const cancelled = !writeError && (ctx.signal.aborted || (error instanceof ComputeError && error.cancelled));
        finish(cancelled ? 'cancelled' : 'failed', cancelled ? null : `${writeError ? 'could not store a step: ' : ''}${failure.message}`);
        throw failure;
      } finally {
        ctx.signal.removeEventListener('abort', onJobCancel);
      }
    },
  });

  function finish(status: 'completed' | 'failed' | 'cancelled', error: string | null): void {
    s.store.runs.update(runId, { status, error, etaMs: null, finishedAt: Date.now() });
    s.events.emit('run.status', { runId, status, error });
  }
}

/**
 * The checkpoint a run's `initFrom` names (its latest when no step is given), checked to exist and to
 * hold the model the new config asks for: the weights decide the model, so a mismatch is refused.
 */
export function initFromCheckpoint(s: EngineServices, init: { runId: string; step?: number }, model?: RunConfig['model']): { dir: string; step: number } {
  const source = s.store.runs.get(init.runId);
  if (!source) throw new ContractError('not_found', `initFrom: no run with id ${init.runId}`, [{ path: 'config.initFrom.runId', message: 'no such run' }]);
  const steps = source.checkpoints.map((c) => c.step);
  const step = init.step ?? steps.at(-1);
  if (step === undefined || !steps.includes(step)) {
    throw new ContractError('not_found', `initFrom: run ${init.runId} has no checkpoint${step === undefined ? '' : ` at step ${step}`} (checkpoints: ${steps.join(', ') || 'none'})`, [
      { path: 'config.initFrom.step', message: 'no checkpoint at that step' },
    ]);
  }
  if (model !== undefined && JSON.stringify(model) !== JSON.stringify(source.config.model)) {
    throw new ContractError('invalid_input', `initFrom: run ${init.runId} trained ${JSON.stringify(source.config.model)}; this config asks for ${JSON.stringify(model)} (set model to match)`, [
      { path: 'config.model', message: 'must match the initFrom run' },
    ]);
  }
  return { dir: s.store.runs.checkpointPath(init.runId, step) ?? checkpointDir(s, init.runId, step), step };
}

/** Where a run's checkpoint for `step` lives. */
export function checkpointDir(s: EngineServices, runId: string, step: number): string {
  return path.join(runDir(s.paths, runId), 'checkpoints', `step-${step}`);
}

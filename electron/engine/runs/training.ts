import fs from 'node:fs';
import path from 'node:path';
import { ContractError, type Job, type RunConfig } from '../../contract';
import { ComputeError } from '../compute/client';
import type { TrainEvent } from '../compute/protocol';
import { runDir } from '../home';
import { stageEnds } from './preflight-training';
import type { EngineServices } from '../system/services';

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
      const keepSteps = stageEnds(run.config);
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
          const line = { runId, level: event.level, message: event.message, time: Date.now() };
          // Stored as well as pushed, so the Dashboard's Log panel reads it back after a reload (runs.log; capped per run).
          s.store.logs.append(runId, line);
          s.events.emit('run.log', line);
        } else {
          let pruned: string[] = [];
          const ids = s.store.db.transaction(() => {
            const heldout = event.metrics['eval/success'];
            const best = s.store.runs.get(runId)?.bestHeldoutSuccess ?? null;
            // Step 0 is the untrained policy's evaluation: a baseline, never the run's best (it has no checkpoint).
            const bestHeldoutSuccess = heldout !== undefined && event.step > 0 && (best === null || heldout > best) ? heldout : undefined;
            const written = s.store.writeStep({ runId, step: event.step, metrics: event.metrics, rollouts: event.rollouts, run: { etaMs, bestHeldoutSuccess } });
            if (event.checkpoint) {
              s.store.runs.addCheckpoint(runId, event.checkpoint.step, event.checkpoint.path);
              pruned = forgetPrunedCheckpoints(s, runId, run.config, keepSteps);
            }
            return written;
          })();
          // Folders go only once the store no longer offers them (fork, export, resume read the store).
          if (event.checkpoint) deleteCheckpointFolders(s, runId, pruned, event.checkpoint.step);
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
            // Only a fresh start reads initFrom (train.ts); a resume or fork has its weights, and the
            // source checkpoint may since have been pruned.
            initFromDir: run.config.initFrom && options.resumeFromStep === undefined && !options.resumeFromDir ? initFromCheckpoint(s, run.config.initFrom).dir : undefined,
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
 * Which of a run's checkpoints retention deletes: all but the newest `keepLast`, the best by held-out
 * success when `keepBest` (the earliest of equals, as `bestHeldoutSuccess` counts it; none without
 * evaluations) and steps another run still has to load (`pinned`).
 */
export function checkpointsToPrune(
  records: ReadonlyArray<{ step: number; heldoutSuccess: number | null }>,
  keep: { last: number; best: boolean },
  pinned: ReadonlySet<number> = new Set(),
): number[] {
  const steps = records.map((r) => r.step).sort((a, b) => a - b);
  const kept = new Set([...steps.slice(-keep.last), ...pinned]);
  if (keep.best) {
    let best: { step: number; heldoutSuccess: number | null } | undefined;
    for (const r of [...records].sort((a, b) => a.step - b.step)) if (r.heldoutSuccess !== null && (!best || r.heldoutSuccess > best.heldoutSuccess!)) best = r;
    if (best) kept.add(best.step);
  }
  return steps.filter((step) => !kept.has(step));
}

/**
 * Retention's store half (inside the step's transaction): forgets the pruned checkpoints, returns
 * their folders. `keepSteps`: the ends of the stages before the last (the SFT model other methods
 * start from: initFrom, forks, the experiment's SFT-only row).
 */
function forgetPrunedCheckpoints(s: EngineServices, runId: string, config: RunConfig, keepSteps: readonly number[]): string[] {
  const records = s.store.runs.checkpointRecords(runId);
  const pinned = new Set([...s.store.runs.pinnedCheckpoints(runId), ...keepSteps]);
  const prune = new Set(checkpointsToPrune(records, { last: config.checkpointKeepLast, best: config.checkpointKeepBest }, pinned));
  s.store.runs.deleteCheckpoints(runId, [...prune]);
  return records.filter((r) => prune.has(r.step)).map((r) => r.path);
}

/**
 * Retention's disk half: the pruned folders, plus any `step-N` folder below the newest recorded step
 * that the store does not list (left by a crash between the two halves, or written by an attempt
 * killed before its step was recorded). Folders at or above `newest` may be the worker's next ones.
 * A folder that cannot be removed is logged, never fatal: training goes on.
 */
function deleteCheckpointFolders(s: EngineServices, runId: string, pruned: readonly string[], newest: number): void {
  const root = path.join(runDir(s.paths, runId), 'checkpoints');
  const listed = new Set(s.store.runs.checkpointRecords(runId).map((r) => r.step));
  const stray = fs.existsSync(root)
    ? fs.readdirSync(root).filter((name) => {
        const m = /^step-(\d+)$/.exec(name);
        return m !== null && Number(m[1]) < newest && !listed.has(Number(m[1]));
      })
    : [];
  const targets = new Set([...pruned.filter((p) => path.dirname(path.resolve(p)) === path.resolve(root)), ...stray.map((name) => path.join(root, name))]);
  for (const dir of targets) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      s.events.emit('run.log', { runId, level: 'warn', message: `could not delete pruned checkpoint ${dir}: ${(error as Error).message}`, time: Date.now() });
    }
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

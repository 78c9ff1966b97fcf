import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { ContractError, RunConfig, type Run } from '../../contract';
import { stageRecipe } from '../runs/rl-recipes';
import { runDir } from '../home';
import type { EngineServices } from '../system/services';
import { preflight, runConfigFileProblems } from '../runs/preflight';
import { rootsForTransport } from '../home/user-paths';
import { checkpointDir, initFromCheckpoint, startTraining } from '../runs/training';
import type { HandlerGroup } from './types';

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `run-${stamp}-${randomBytes(3).toString('hex')}`;
}

function requireRun(s: EngineServices, id: string): Run {
  const run = s.store.runs.get(id);
  if (!run) throw new ContractError('not_found', `no run with id ${id}`);
  return run;
}

const ACTIVE = new Set(['queued', 'running']);

export const runsHandlers: HandlerGroup<'runs.list' | 'runs.get' | 'runs.create' | 'runs.recipe' | 'runs.preflight' | 'runs.start' | 'runs.cancel' | 'runs.resume' | 'runs.fork' | 'runs.delete' | 'runs.log'> = (
  s,
) => ({
  'runs.list': (input) => s.store.runs.list(input),
  'runs.get': ({ id }) => requireRun(s, id),
  'runs.create': ({ config, start }, ctx) => {
    // A file the run will read, named from the workbench window, must lie in the data home like every other path.
    const fileProblems = runConfigFileProblems(config, rootsForTransport(ctx.transport, s.paths.home));
    if (fileProblems.length) throw new ContractError('invalid_input', fileProblems.map((p) => p.message).join('; '), fileProblems);
    if (config.initFrom) initFromCheckpoint(s, config.initFrom, config.model);
    if (!s.envs.ids().includes(config.env)) {
      const known = s.envs.ids();
      throw new ContractError('invalid_input', `unknown environment "${config.env}"${known.length ? `; known: ${known.join(', ')}` : ''}`, [
        { path: 'config.env', message: 'not a registered environment' },
      ]);
    }
    const run = s.store.runs.insert({ id: newRunId(), config });
    s.events.emit('run.status', { runId: run.id, status: run.status, error: null });
    if (start) startTraining(s, run.id);
    return requireRun(s, run.id);
  },
  'runs.recipe': ({ env, model, algo, variant }) => {
    if (!s.envs.ids().includes(env)) throw new ContractError('not_found', `no environment "${env}"`);
    const recipe = stageRecipe(env, model, algo, variant);
    return { ...recipe, config: RunConfig.parse(recipe.config) };
  },
  // Providers are probed where ORT runs, in the compute worker: the engine's main thread never loads it.
  'runs.preflight': ({ config }, ctx) =>
    preflight(config, s.paths.models, { roots: rootsForTransport(ctx.transport, s.paths.home), providers: () => s.compute.call('providers', {}) }),
  'runs.start': ({ id }) => {
    const run = requireRun(s, id);
    if (run.status !== 'created') throw new ContractError('conflict', `run ${id} is ${run.status}; only a created run can be started (use resume)`);
    startTraining(s, id);
    return requireRun(s, id);
  },
  'runs.cancel': ({ id }) => {
    const run = requireRun(s, id);
    const job = s.jobs.list().find((j) => j.runId === id && (j.state === 'queued' || j.state === 'running'));
    if (!job || !ACTIVE.has(run.status)) throw new ContractError('conflict', `run ${id} is ${run.status}, not running`);
    s.jobs.cancel(job.id);
    if (job.state === 'queued') {
      s.store.runs.update(id, { status: 'cancelled', finishedAt: Date.now() });
      s.events.emit('run.status', { runId: id, status: 'cancelled', error: null });
    }
    return { ok: true as const };
  },
  'runs.resume': ({ id }) => {
    const run = requireRun(s, id);
    if (ACTIVE.has(run.status) || run.status === 'completed' || run.status === 'created') {
      throw new ContractError('conflict', `run ${id} is ${run.status}; only interrupted, failed or cancelled runs resume`);
    }
    const last = run.checkpoints.at(-1);
    startTraining(s, id, last ? { resumeFromStep: last.step } : {});
    return requireRun(s, id);
  },
  'runs.fork': ({ id, fromStep, name }) => {
    const parent = requireRun(s, id);
    if (!parent.checkpoints.some((c) => c.step === fromStep)) {
      const steps = parent.checkpoints.map((c) => c.step);
      throw new ContractError('not_found', `run ${id} has no checkpoint at step ${fromStep}${steps.length ? ` (checkpoints: ${steps.join(', ')})` : ' (no checkpoints yet)'}`);
    }
    const config = { ...parent.config, name: name ?? `${parent.name} ⑂ step ${fromStep}` };
    const child = s.store.runs.insert({ id: newRunId(), config, parentRunId: id, parentStep: fromStep });
    s.events.emit('run.status', { runId: child.id, status: child.status, error: null });
    startTraining(s, child.id, { resumeFromStep: fromStep, resumeFromDir: s.store.runs.checkpointPath(id, fromStep) ?? checkpointDir(s, id, fromStep) });
    return requireRun(s, child.id);
  },
  'runs.log': ({ id, limit }) => {
    requireRun(s, id);
    return { lines: s.store.logs.list(id, limit) };
  },
  'runs.delete': ({ id }) => {
    const run = requireRun(s, id);
    if (ACTIVE.has(run.status)) throw new ContractError('conflict', `run ${id} is ${run.status}; cancel it before deleting`);
    s.store.runs.delete(id);
    fs.rmSync(runDir(s.paths, id), { recursive: true, force: true });
    return { ok: true as const };
  },
});

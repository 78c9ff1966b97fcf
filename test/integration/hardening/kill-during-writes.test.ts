import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunConfigInput, WorkbenchApi } from '../../../electron/contract';
import { createEngine, type Engine } from '../../../electron/engine/host';
import { inProcessClient } from '../../../electron/engine/in-process';
import { seedCheckpointedRun } from '../../helpers/checkpoint';
import { settledRun, tempHome } from '../../helpers/engine';
import { patience } from '../../helpers/patience';

// kill -9 of an engine at an exact point inside a write (ENVACE_TEST_PAUSE_AT, pause-point.ts), then
// a fresh engine on the same home: it must start cleanly and show only complete work.

const homes: string[] = [];
afterAll(() => homes.forEach((h) => fs.rmSync(h, { recursive: true, force: true })));

function newHome(): string {
  const home = tempHome('envace-killw-');
  homes.push(home);
  return home;
}

/** Run `method(input)` in a child engine on `home`, and SIGKILL it once it reports the pause point. */
async function killAt(home: string, point: string, method: string, input: unknown): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../../fixtures/kill-point-child.ts'), home, method, JSON.stringify(input)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ENVACE_TEST_PAUSE_AT: point },
  });
  let seen = '';
  const onData = (d: Buffer) => {
    seen += String(d);
    if (seen.includes('paused ')) child.kill('SIGKILL');
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', (d: Buffer) => (seen += String(d)));
  // A child that never reaches the point would hang the test: give up after a while and show why.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [, signal] = (await new Promise((r) => child.once('exit', (...args) => r(args)))) as [number | null, string | null];
  clearTimeout(timer);
  expect(seen, `the child should have paused at ${point}`).toContain(`paused ${point}`);
  expect(signal).toBe('SIGKILL');
}

async function withEngine<T>(home: string, use: (api: WorkbenchApi, engine: Engine) => Promise<T>): Promise<T> {
  const engine = createEngine({ home });
  try {
    return await use(inProcessClient(engine), engine);
  } finally {
    await engine.close();
  }
}

const training: RunConfigInput = {
  env: 'retail',
  worldSize: 5,
  algo: 'envace',
  model: { preset: 'nano' },
  seed: 5,
  provider: 'cpu',
  steps: 4,
  checkpointEvery: 2,
  rollout: { k: 2, tasksPerStep: 1, maxTurns: 2, maxTokensPerTurn: 32, maxObservationTokens: 16, toolSchemas: 'none' },
};

/** A home holding a run with one checkpoint of an untrained nano policy on the mock environment. */
async function homeWithPolicy(): Promise<{ home: string; runId: string }> {
  const home = newHome();
  const rollout = { maxTurns: 2, maxTokensPerTurn: 12, maxObservationTokens: 24, k: 2, toolSchemas: 'none' as const };
  const { runId } = await withEngine(home, (_api, engine) =>
    seedCheckpointedRun(engine, { env: 'mock', model: { preset: 'nano' }, rollout }, ['create a task for the user', 'get_users', 'update_task_status']),
  );
  return { home, runId };
}

describe('kill -9 during a checkpoint write', () => {
  // filled: the new folder is complete but not yet in place; swapping: it is renamed to `.ready-`, not yet to step-4.
  it.each(['atomic-filled', 'atomic-swapping'])('%s: the half-written checkpoint is never offered and the run resumes from the last complete one', async (stage) => {
    const home = newHome();
    const run = await withEngine(home, (api) => api.call('runs.create', { config: training }));
    await killAt(home, `${stage}:step-4`, 'runs.start', { id: run.id });
    const checkpoints = path.join(home, 'runs', run.id, 'checkpoints');
    expect(fs.readdirSync(checkpoints).filter((n) => n.startsWith('step-4.')), 'the kill left the unfinished step-4 beside step-2').toHaveLength(1);

    await withEngine(home, async (api) => {
      const interrupted = await api.call('runs.get', { id: run.id });
      expect(interrupted.status).toBe('interrupted');
      expect(interrupted.checkpoints.map((c) => c.step)).toEqual([2]);
      await expect(api.call('exports.create', { source: { run: run.id, step: 4 }, format: 'hf' })).rejects.toMatchObject({ code: 'not_found' });
      await api.call('runs.resume', { id: run.id });
      expect((await settledRun(api, run.id)).status).toBe('completed');
      const done = await api.call('runs.get', { id: run.id });
      expect(done.checkpoints.map((c) => c.step)).toEqual([2, 4]);
    });
    expect(fs.readdirSync(checkpoints).sort(), 'no leftover of the killed write').toEqual(['step-2', 'step-4']);
  }, patience(120_000));
});

describe('kill -9 during an export', () => {
  it('records no export, and the next export leaves no leftover of the killed one', async () => {
    const { home, runId } = await homeWithPolicy();
    await killAt(home, `atomic-filled:${runId}-step-1-hf`, 'exports.create', { source: { run: runId }, format: 'hf' });
    const exportsDir = path.join(home, 'exports');
    expect(fs.readdirSync(exportsDir).filter((n) => n.includes('.tmp-')), 'the kill left a half-written export').toHaveLength(1);

    await withEngine(home, async (api) => {
      expect((await api.call('exports.list', {})).items).toEqual([]);
      const record = await api.call('exports.create', { source: { run: runId }, format: 'hf' });
      expect((await api.call('exports.list', {})).items.map((e) => e.id)).toEqual([record.id]);
      expect(fs.readdirSync(exportsDir)).toEqual([path.basename(record.outDir)]);
      for (const f of record.files) expect(fs.statSync(path.join(record.outDir, f.name)).size).toBe(f.bytes);
    });
  }, patience(120_000));
});

describe('kill -9 during a memory commit', () => {
  it('leaves no part of the commit behind, the memory as it was, and a later commit whole', async () => {
    const { home, runId } = await homeWithPolicy();
    const memory = await withEngine(home, async (api) => (await api.call('memories.rehearse', { runId, taskId: 'create_task_1', rehearsals: 1 })).memory);
    await killAt(home, 'memory-commit', 'memories.commit', { memoryId: memory.id, runId });

    await withEngine(home, async (api, engine) => {
      const commits = async () => (await api.call('trajectories.list', { runId, limit: 100 })).items.filter((r) => r.purpose === 'commit');
      expect(await commits(), 'a commit the engine died inside is not visible').toEqual([]);
      const orphans = engine.services.store.db.prepare('SELECT COUNT(*) AS n FROM turns WHERE rollout_id NOT IN (SELECT id FROM rollouts)').get() as { n: number };
      expect(orphans.n).toBe(0);
      expect(await api.call('memories.get', { id: memory.id })).toEqual(memory);

      const outcome = await api.call('memories.commit', { memoryId: memory.id, runId });
      expect((await commits()).map((r) => r.id)).toEqual([outcome.rolloutId]);
      expect((await api.call('trajectories.get', { id: outcome.rolloutId })).turns.length).toBeGreaterThan(0);
    });
  }, patience(120_000));
});

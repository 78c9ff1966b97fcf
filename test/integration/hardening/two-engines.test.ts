import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContractError, type RunConfigInput } from '../../../electron/contract';
import { createEngine } from '../../../electron/engine/host';
import { inProcessClient } from '../../../electron/engine/in-process';
import { settledRun, tempHome } from '../../helpers/engine';

// nano on a small retail world: long enough to be caught mid-run, short enough for CI.
const config: RunConfigInput = {
  env: 'retail',
  worldSize: 5,
  algo: 'sft+envace',
  model: { preset: 'nano' },
  seed: 3,
  provider: 'cpu',
  steps: 3,
  sft: { steps: 6 },
  checkpointEvery: 3,
  rollout: { k: 2, tasksPerStep: 2, maxTurns: 2, maxTokensPerTurn: 32, maxObservationTokens: 24, toolSchemas: 'none' },
};

const homes: string[] = [];
afterAll(() => homes.forEach((h) => fs.rmSync(h, { recursive: true, force: true })));

async function createdRun(home: string): Promise<string> {
  const setup = createEngine({ home });
  try {
    return (await inProcessClient(setup).call('runs.create', { config })).id;
  } finally {
    await setup.close();
  }
}

/** Start a child that owns `home`; resolves once it has printed a line matching `until`. */
function spawnChild(fixture: string, args: string[], until: RegExp): { child: ChildProcess; ready: Promise<void>; output: () => string; exit: Promise<[number | null, string | null]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../../fixtures', fixture), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      seen += String(d);
      if (until.test(seen)) resolve();
    });
    child.once('exit', () => reject(new Error(`the child exited before printing ${until}; it printed:\n${seen}`)));
  });
  child.stderr!.on('data', (d: Buffer) => (seen += String(d)));
  const exit = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
  return { child, ready, output: () => seen, exit };
}

async function refusal(call: Promise<unknown>): Promise<ContractError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ContractError);
  return error as ContractError;
}

describe('two engines on one data home', () => {
  it('while one trains, the other lists and shows the run, refuses resume, delete and create naming the owner, and loses nothing', async () => {
    const home = tempHome('envace-two-');
    homes.push(home);
    const runId = await createdRun(home);
    const owner = spawnChild('train-owner.ts', [home, runId], /step 1\n/);
    await owner.ready;
    // Frozen mid-run: its pid is alive, so it still owns the home, and the run cannot finish under the checks.
    owner.child.kill('SIGSTOP');
    const engine = createEngine({ home });
    const api = inProcessClient(engine);
    try {
      expect(engine.writable).toBe(false);
      const info = await api.call('system.info');
      expect(info.dataHomeAccess.writable).toBe(false);
      expect(info.dataHomeAccess.owner).toContain(`pid ${owner.child.pid}`);

      // Reads work, and opening a second engine did not mark the live run interrupted.
      const listed = await api.call('runs.list', {});
      expect(listed.items.find((r) => r.id === runId)?.status).toBe('running');
      expect((await api.call('runs.get', { id: runId })).status).toBe('running');
      expect((await api.call('metrics.keys', { id: runId })).keys.length).toBeGreaterThan(0);

      for (const attempt of [api.call('runs.resume', { id: runId }), api.call('runs.delete', { id: runId }), api.call('runs.create', { config })]) {
        const error = await refusal(attempt);
        expect(error.code).toBe('conflict');
        expect(error.message).toContain('the train-owner fixture');
        expect(error.message).toContain(`pid ${owner.child.pid}`);
      }
      expect((await api.call('runs.get', { id: runId })).status).toBe('running');

      owner.child.kill('SIGCONT');
      const [code] = await owner.exit;
      expect(code, owner.output()).toBe(0);

      // Every step exactly once; the run completed under its one trainer.
      const run = await api.call('runs.get', { id: runId });
      expect(run.status).toBe('completed');
      const { series } = await api.call('metrics.query', { runId, keys: ['loss'], maxPoints: 10_000 });
      const steps = series[0]?.steps ?? [];
      expect(new Set(steps).size).toBe(steps.length);
      expect(steps.length).toBeGreaterThan(0);

      // The owner has gone: this engine takes the home over at its next request, and may write.
      expect((await api.call('runs.delete', { id: runId })).ok).toBe(true);
      expect(engine.writable).toBe(true);
    } finally {
      if (owner.child.exitCode === null) owner.child.kill('SIGKILL');
      await engine.close();
    }
  });

  it('an owner killed with SIGKILL: the attached engine takes over, finds the run interrupted, and resumes it to completion', async () => {
    const home = tempHome('envace-two-kill-');
    homes.push(home);
    const runId = await createdRun(home);
    const owner = spawnChild('train-owner.ts', [home, runId], /step 2\n/);
    await owner.ready;
    owner.child.kill('SIGSTOP');
    const engine = createEngine({ home });
    const api = inProcessClient(engine);
    try {
      expect((await api.call('runs.get', { id: runId })).status).toBe('running');
      owner.child.kill('SIGKILL');
      await owner.exit;
      const after = await api.call('runs.get', { id: runId });
      expect(after.status).toBe('interrupted');
      expect(engine.writable).toBe(true);
      await api.call('runs.resume', { id: runId });
      expect((await settledRun(api, runId)).status).toBe('completed');
    } finally {
      await engine.close();
    }
  });

  it('a closed engine gives the home up: the next one owns it', async () => {
    const home = tempHome('envace-two-seq-');
    homes.push(home);
    const first = createEngine({ home });
    expect(first.writable).toBe(true);
    await first.close();
    const second = createEngine({ home });
    expect(second.writable).toBe(true);
    await second.close();
    expect(fs.existsSync(path.join(home, 'engine.lock'))).toBe(false);
  });
});

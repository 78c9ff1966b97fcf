import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunConfigInput, WorkbenchApi } from '../../electron/contract';
import { createEngine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import { settledRun, tempHome } from '../helpers/engine';

// A chain with both stages and several checkpoints, small enough for CI: nano on a 5-user retail world.
const config: RunConfigInput = {
  env: 'retail',
  worldSize: 5,
  algo: 'sft+envace',
  model: { preset: 'nano' },
  seed: 7,
  provider: 'cpu',
  steps: 4,
  sft: { steps: 4 },
  checkpointEvery: 2,
  rollout: { k: 2, tasksPerStep: 2, maxTurns: 2, maxTokensPerTurn: 48, maxObservationTokens: 24, toolSchemas: 'none' },
  optim: { lr: 3e-3, warmupSteps: 2 },
};

// Wall-clock figures differ between any two runs; everything else must be identical.
const TIMING = /(_ms|per_s|wall|tokens_per)/;

async function metricsTable(api: WorkbenchApi, id: string): Promise<Map<string, Array<[number, number]>>> {
  const { keys } = await api.call('metrics.keys', { id });
  const { series } = await api.call('metrics.query', { runId: id, keys: keys.filter((k) => !TIMING.test(k)), maxPoints: 100_000 });
  return new Map(series.map((s) => [s.key, s.steps.map((step, i) => [step, s.values[i]] as [number, number])]));
}

const homes: string[] = [];
afterAll(() => homes.forEach((h) => fs.rmSync(h, { recursive: true, force: true })));

describe('a training run killed with SIGKILL at a random step', () => {
  it('resumes from its last checkpoint and ends with every step exactly once, equal to an uninterrupted run', async () => {
    // The reference: the same config trained without interruption.
    const refHome = tempHome('envace-ref-');
    homes.push(refHome);
    const refEngine = createEngine({ home: refHome });
    const refApi = inProcessClient(refEngine);
    const ref = await refApi.call('runs.create', { config, start: true });
    expect((await settledRun(refApi, ref.id)).status).toBe('completed');
    const expected = await metricsTable(refApi, ref.id);
    const total = (await refApi.call('runs.get', { id: ref.id })).totalSteps;
    await refEngine.close();

    // The victim: trained in a child process, killed after a random step past the first checkpoint.
    const home = tempHome('envace-kill-');
    homes.push(home);
    const setup = createEngine({ home });
    const run = await inProcessClient(setup).call('runs.create', { config });
    await setup.close();
    // A random step between checkpoints, so the store holds steps the resume must redo.
    const between = Array.from({ length: total }, (_, i) => i + 1).filter((s) => s > 2 && s < total && s % 2 === 1);
    const killAt = between[Math.floor(Math.random() * between.length)];
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../fixtures/train-child.ts'), home, run.id, String(killAt)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    child.stdout.on('data', (d: Buffer) => (seen += String(d)));
    const [, signal] = (await new Promise((r) => child.once('exit', (...args) => r(args)))) as [number | null, string | null];
    expect(signal, `the child should have killed itself at step ${killAt}; it printed:\n${seen}`).toBe('SIGKILL');

    // A new engine finds the run interrupted, resumes it from its last checkpoint, and finishes.
    const engine = createEngine({ home });
    const api = inProcessClient(engine);
    try {
      const interrupted = await api.call('runs.get', { id: run.id });
      expect(interrupted.status).toBe('interrupted');
      expect(interrupted.checkpoints.length).toBeGreaterThan(0);
      expect(interrupted.currentStep).toBe(killAt);
      expect(interrupted.checkpoints.at(-1)!.step).toBe(killAt - 1);
      await api.call('runs.resume', { id: run.id });
      expect((await settledRun(api, run.id)).status).toBe('completed');

      const actual = await metricsTable(api, run.id);
      expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [key, points] of expected) {
        const got = actual.get(key)!;
        expect(got.map(([s]) => s), `${key}: every step exactly once`).toEqual(points.map(([s]) => s));
        expect(got, key).toEqual(points);
      }
      const rolloutSteps = (await api.call('trajectories.list', { runId: run.id, limit: 1000 })).items.map((r) => r.step);
      const refRolloutSteps = await (async () => {
        const e = createEngine({ home: refHome });
        try {
          return (await inProcessClient(e).call('trajectories.list', { runId: ref.id, limit: 1000 })).items.map((r) => r.step);
        } finally {
          await e.close();
        }
      })();
      expect(rolloutSteps.sort()).toEqual(refRolloutSteps.sort());
    } finally {
      await engine.close();
    }
  });
});

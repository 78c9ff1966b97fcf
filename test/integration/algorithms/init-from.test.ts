// Any method from any checkpoint with its own config: one SFT checkpoint, several methods on top.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunConfigInput } from '../../../electron/contract';
import { createEngine } from '../../../electron/engine/host';
import { inProcessClient } from '../../../electron/engine/in-process';
import { lastJson, runEnvace } from '../../helpers/cli';
import { settledRun, tempHome } from '../../helpers/engine';

const home = tempHome('envace-init-from-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const common: RunConfigInput = {
  env: 'retail',
  worldSize: 5,
  model: { preset: 'nano' },
  seed: 2,
  provider: 'cpu',
  rollout: { k: 2, tasksPerStep: 2, maxTurns: 2, maxTokensPerTurn: 32, maxObservationTokens: 24, toolSchemas: 'none' },
  optim: { lr: 3e-3, warmupSteps: 1 },
};

describe('initFrom: a run that starts from another run’s checkpoint', () => {
  it('trains its own method and budget from the SFT checkpoint, with its tokenizer, its own schedule and moments choice and its own step count', async () => {
    const engine = createEngine({ home });
    const api = inProcessClient(engine);
    const logs: string[] = [];
    const logsOf = new Map<string, string[]>();
    api.on('run.log', (e) => {
      logs.push(e.message);
      logsOf.set(e.runId, [...(logsOf.get(e.runId) ?? []), e.message]);
    });
    try {
      const sft = await api.call('runs.create', { config: { ...common, algo: 'sft', steps: 4, checkpointEvery: 2 }, start: true });
      expect((await settledRun(api, sft.id)).status).toBe('completed');

      const rl = await api.call('runs.create', { config: { ...common, algo: 'envace', steps: 2, initFrom: { runId: sft.id, step: 2 } }, start: true });
      expect(rl.totalSteps).toBe(2);
      expect((await settledRun(api, rl.id)).status).toBe('completed');
      expect(logs.some((m) => m.includes(`initialised from`) && m.includes(path.join(sft.id, 'checkpoints', 'step-2')))).toBe(true);
      const tokenizer = (run: string, step: number) => fs.readFileSync(path.join(home, 'runs', run, 'checkpoints', `step-${step}`, 'tokenizer', 'tokenizer.json'), 'utf8');
      expect(tokenizer(rl.id, 2)).toBe(tokenizer(sft.id, 2));
      // Its own schedule: step 1 is its warm-up step at the full rate (warm-up 1), not the SFT run's floor.
      const { series } = await api.call('metrics.query', { runId: rl.id, keys: ['lr'], maxPoints: 10 });
      expect(series[0].steps[0]).toBe(1);
      expect(series[0].values[0]).toBeCloseTo(3e-3, 8);
      // Its first stage zeroes the checkpoint's AdamW moments by default; resetMoments false keeps them.
      expect(logsOf.get(rl.id)!.some((m) => m.includes('AdamW moments reset'))).toBe(true);
      const keep = await api.call('runs.create', { config: { ...common, algo: 'grpo-real', steps: 1, initFrom: { runId: sft.id, step: 2 }, optim: { ...common.optim, stages: { rl: { resetMoments: false } } } }, start: true });
      expect((await settledRun(api, keep.id)).status).toBe('completed');
      expect(logsOf.get(keep.id)!.some((m) => m.includes('initialised from'))).toBe(true);
      expect(logsOf.get(keep.id)!.some((m) => m.includes('AdamW moments reset'))).toBe(false);

      const wrongModel = api.call('runs.create', { config: { ...common, model: { preset: 'tiny' }, algo: 'envace', initFrom: { runId: sft.id } } });
      await expect(wrongModel).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/set model to match/) });
      await expect(api.call('runs.create', { config: { ...common, algo: 'envace', initFrom: { runId: sft.id, step: 3 } } })).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await engine.close();
    }

    // From the command line: RUN@STEP, the model taken from the checkpoint's run.
    const cli = await runEnvace(home, 'train', '--env', 'retail', '--algo', 'grpo-real', '--steps', '1', '--init-from', `${(await firstRun())}@4`, '--json', '--set', 'worldSize=5', 'rollout.k=2', 'rollout.tasksPerStep=1', 'rollout.maxTurns=2', 'rollout.maxTokensPerTurn=24', 'rollout.toolSchemas=none', 'evalEvery=0');
    expect(cli.code, cli.stderr).toBe(0);
    expect(lastJson(cli.stdout)).toMatchObject({ status: 'completed', totalSteps: 1 });
  });
});

async function firstRun(): Promise<string> {
  const engine = createEngine({ home });
  try {
    const { items } = await inProcessClient(engine).call('runs.list', {});
    return items.find((r) => r.algo === 'sft')!.id;
  } finally {
    await engine.close();
  }
}

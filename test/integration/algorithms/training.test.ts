import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../electron/contract';
import { type StepResult, envOptions, rolloutSettings, runTraining } from '../../../electron/engine/algorithms/train';
import { NativePolicy } from '../../../electron/engine/algorithms/policy';
import { evaluatePolicy } from '../../../electron/engine/algorithms/evaluate';
import { getEnv } from '../../../electron/engine/envs/registry';
import { AlgorithmError } from '../../../electron/engine/algorithms/errors';

const root = mkdtempSync(join(tmpdir(), 'envace-algos-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let runs = 0;

// Small and fast: nano model, retail world of 5 users, short turns, no tool schemas in the prompt
// (a from-scratch model learns the tools from demonstrations).
const base: RunConfigInput = {
  env: 'retail',
  worldSize: 5,
  model: { preset: 'nano' },
  seed: 3,
  provider: 'cpu',
  rollout: { k: 2, tasksPerStep: 2, maxTurns: 3, maxTokensPerTurn: 64, maxObservationTokens: 24, toolSchemas: 'none' },
  optim: { lr: 3e-3, warmupSteps: 2 },
};

async function train(
  overrides: RunConfigInput | Partial<RunConfigInput>,
  opts: { runDir?: string; resumeFromStep?: number; resumeFromDir?: string; abortAfter?: number } = {},
) {
  const runDir = opts.runDir ?? join(root, `run-${runs++}`);
  const steps: StepResult[] = [];
  const logs: string[] = [];
  const controller = new AbortController();
  const out = await runTraining(RunConfig.parse({ ...base, ...overrides }), {
    runDir,
    resumeFromStep: opts.resumeFromStep,
    resumeFromDir: opts.resumeFromDir,
    signal: controller.signal,
    onStep: (s) => {
      steps.push(s);
      if (s.step === opts.abortAfter) controller.abort();
    },
    onLog: (_l, m) => logs.push(m),
    onProgress: () => {},
  });
  return { ...out, steps, logs, runDir };
}

/** Metrics that measure wall time differ between identical runs; everything else must not. */
const deterministic = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !/_ms$|per_s$/.test(k)));

describe('runTraining end to end on nano', () => {
  it('SFT on expert demonstrations: solves training tasks and acts validly on held-out ones, unlike the untrained model', async () => {
    const sftConfig = {
      sft: { worldModelLoss: false },
      rollout: { ...base.rollout, k: 1, tasksPerStep: 8, maxTokensPerTurn: 96, maxObservationTokens: 32 },
    };
    const untrained = await train({ ...sftConfig, algo: 'sft', steps: 1, evalEvery: 1, optim: { lr: 1e-9, warmupSteps: 0 } });
    const sft = await train({ ...sftConfig, algo: 'sft', steps: 400, evalEvery: 400, checkpointEvery: 400 });
    const before = untrained.steps[0].metrics;
    const after = sft.steps[sft.steps.length - 1].metrics;
    expect(after.loss).toBeLessThan(sft.steps[0].metrics.loss / 10);
    // Held-out tasks (unseen users), evaluated by the loop in the real env.
    expect(after['eval/invalid_action_rate']).toBeLessThan(before['eval/invalid_action_rate'] - 0.15);
    expect(after['eval/success']).toBeGreaterThanOrEqual(before['eval/success']);
    // Training tasks, evaluated from the saved checkpoints: the round trip through disk is part of the test.
    const trainSuccess = async (dir: string) => {
      const cfg = RunConfig.parse({ ...base, ...sftConfig, algo: 'sft' });
      const env = await getEnv('retail', envOptions(cfg));
      const policy = await NativePolicy.fromCheckpoint(dir);
      // One-call look-ups: the task families whose whole episode fits the nano model's 256-token context.
      const tasks = env
        .tasks('train')
        .map((t) => env.task(t.id))
        .filter((t) => t.gold.calls.length === 1)
        .slice(0, 16);
      const ev = await evaluatePolicy(policy, env, tasks, { ...rolloutSettings(cfg), temperature: 0 }, { seed: 0 });
      await policy.release();
      return ev.success;
    };
    const [s0, s1] = [await trainSuccess(untrained.steps[0].checkpoint!.path), await trainSuccess(sft.steps[sft.steps.length - 1].checkpoint!.path)];
    expect(s0).toBe(0);
    expect(s1).toBeGreaterThanOrEqual(0.25);
  });

  it('sft+envace: the envace stage rehearses (no env calls), trains both roles, reports and checkpoints', async () => {
    // The SFT stage teaches the format, so the envace stage sees valid actions and rehearsed observations.
    const r = await train({
      algo: 'sft+envace',
      sft: { steps: 150 },
      steps: 3,
      checkpointEvery: 75,
      rollout: { ...base.rollout, k: 4, temperature: 0.7 },
    });
    expect(r.finalStep).toBe(153);
    expect(r.steps.map((s) => s.step)).toEqual(Array.from({ length: 153 }, (_, i) => i + 1));
    expect(r.steps.filter((s) => s.checkpoint).map((s) => s.checkpoint!.step)).toEqual([75, 150, 153]);
    expect(readdirSync(join(r.runDir, 'checkpoints')).sort()).toEqual(['step-150', 'step-153', 'step-75']);
    const rl = r.steps.slice(150);
    for (const s of rl) {
      expect(s.rollouts).toHaveLength(8); // tasksPerStep × K
      expect(s.metrics.env_calls).toBe(0);
      for (const key of ['reward', 'reward/act', 'loss', 'loss/pg', 'clip_frac', 'entropy', 'lr', 'tokens_per_s'])
        expect(s.metrics[key], key).toBeTypeOf('number');
      expect(s.rollouts.every((ro) => ro.mode === 'rehearse' && ro.envCalls === 0)).toBe(true);
    }
    const turns = rl.flatMap((s) => s.rollouts.flatMap((ro) => ro.turns));
    expect(turns.some((t) => t.role === 'env')).toBe(false);
    // Both roles were generated, and carry log-probs; advantages sit on generated tokens only.
    const rehearsed = turns.filter((t) => t.role === 'rehearse');
    expect(rehearsed.length).toBeGreaterThan(0);
    expect(rehearsed.every((t) => t.logprobs !== null && t.advantages !== null)).toBe(true);
    expect(rl.some((s) => s.metrics['reward/rehearse'] !== undefined)).toBe(true);
  });

  it('resume from a checkpoint reproduces the uninterrupted run exactly', async () => {
    const cfg = { algo: 'sft+envace' as const, sft: { steps: 3 }, steps: 2, checkpointEvery: 2, rollout: { ...base.rollout, temperature: 1 } };
    const full = await train(cfg);
    const runDir = join(root, 'resumed');
    const first = await train(cfg, { runDir, abortAfter: 2 });
    expect(first.finalStep).toBe(2);
    const rest = await train(cfg, { runDir, resumeFromStep: 2 });
    const resumed = [...first.steps, ...rest.steps];
    expect(resumed.map((s) => s.step)).toEqual([1, 2, 3, 4, 5]);
    expect(resumed.map((s) => deterministic(s.metrics))).toEqual(full.steps.map((s) => deterministic(s.metrics)));
    const tokens = (s: StepResult[]) => s.flatMap((x) => x.rollouts.flatMap((ro) => ro.turns.map((t) => Array.from(t.tokenIds ?? []))));
    expect(tokens(resumed)).toEqual(tokens(full.steps));
  });

  it('KL to the frozen stage-start reference: zero at the first RL step, restored exactly on resume', async () => {
    const cfg = {
      algo: 'sft+envace' as const,
      sft: { steps: 2 },
      steps: 3,
      checkpointEvery: 1,
      loss: { klBeta: 0.5 },
      optim: { lr: 3e-2, warmupSteps: 0 },
    };
    const full = await train(cfg);
    const rl = full.steps.slice(2);
    expect(rl.every((s) => typeof s.metrics.kl === 'number')).toBe(true);
    expect(rl[0].metrics.kl).toBeCloseTo(0, 6);
    expect(rl[2].metrics.kl).toBeGreaterThan(0);
    expect(existsSync(join(full.runDir, 'checkpoints', 'step-4', 'reference'))).toBe(true);
    const runDir = join(root, 'resumed-kl');
    const first = await train(cfg, { runDir, abortAfter: 4 });
    const rest = await train(cfg, { runDir, resumeFromStep: 4 });
    expect([...first.steps, ...rest.steps].map((s) => deterministic(s.metrics))).toEqual(full.steps.map((s) => deterministic(s.metrics)));
  });

  it('memory-aware training: every rollout of a selected task starts with a memory from its private rehearsals', async () => {
    const all = await train({ algo: 'envace', steps: 1, testTime: { memoryAwareFraction: 1 } });
    const s = all.steps[0];
    expect(s.metrics.memory_rate).toBe(1);
    expect(s.metrics.env_calls).toBe(0);
    for (const ro of s.rollouts) expect(ro.turns[2].role).toBe('memory');
    // The nano context leaves the memory little room: its end (the consensus) is what is kept.
    expect(s.rollouts[0].turns[2].text).toMatch(/plan:\n {2}\(no tool calls\)|plan:\n {2}1\. /);
    const none = await train({ algo: 'envace', steps: 1 });
    expect(none.steps[0].metrics.memory_rate).toBe(0);
  });

  it('SFT from a user JSONL file of trajectories', async () => {
    const file = join(root, 'demos.jsonl');
    const line = (i: number) => JSON.stringify({ instruction: `What is ${i} + ${i}?`, steps: [{ action: `<answer>${2 * i}</answer>` }] });
    writeFileSync(file, [1, 2, 3].map(line).join('\n'));
    const r = await train({ algo: 'sft', steps: 3, sft: { demonstrations: 'file', demonstrationsFile: file } });
    expect(r.logs.some((l) => l.startsWith('sft: 3 file demonstrations'))).toBe(true);
    expect(r.steps[2].metrics.loss).toBeLessThan(r.steps[0].metrics.loss);
    await expect(train({ algo: 'sft', steps: 1, sft: { demonstrations: 'file' } })).rejects.toThrow(/demonstrationsFile/);
  });

  it('envace with the simulator rehearse prompt trains simulator rows under the Rehearse advantage', async () => {
    const r = await train({
      algo: 'sft+envace',
      sft: { steps: 150 },
      steps: 1,
      rollout: { ...base.rollout, k: 4, temperature: 0.7, rehearsePrompt: 'simulator' },
    });
    const s = r.steps[150];
    expect(s.metrics.env_calls).toBe(0);
    const rehearsed = s.rollouts.flatMap((ro) => ro.turns.filter((t) => t.role === 'rehearse'));
    expect(rehearsed.length).toBeGreaterThan(0);
    // In the actor's stream the observation is given text (generated in the simulator row).
    expect(rehearsed.every((t) => t.logprobs === null)).toBe(true);
    expect(s.metrics['reward/rehearse']).toBeTypeOf('number');
  });

  it('fork: a new run starts from another run checkpoint folder', async () => {
    const src = await train({ algo: 'sft', steps: 2, checkpointEvery: 2 });
    const fork = await train({ algo: 'sft', steps: 3 }, { resumeFromDir: join(src.runDir, 'checkpoints', 'step-2') });
    expect(fork.steps.map((s) => s.step)).toEqual([3]);
    expect(existsSync(join(fork.runDir, 'checkpoints', 'step-3', 'model'))).toBe(true);
    // The forked checkpoint also opens as a policy on its own (eval / rehearse / export use this).
    const policy = await NativePolicy.fromCheckpoint(join(fork.runDir, 'checkpoints', 'step-3'));
    expect(policy.step).toBe(3);
    await policy.release();
    await expect(NativePolicy.fromCheckpoint(root)).rejects.toThrow(/not a run checkpoint/);
  });

  it.each([
    ['grpo-real', ['success', 'reward/act', 'loss/pg']],
    ['envace-no-rehearse-loss', ['reward/act', 'loss/pg']],
    ['envace-shared-baseline', ['reward/act', 'loss/pg']],
    ['paw', ['loss/wm', 'paw/selected', 'success']],
    ['rwml', ['rwml/similarity', 'rwml/transitions']],
  ] as const)('%s runs a step and reports its metrics', async (algo, keys) => {
    const r = await train({ algo, steps: 1, rwml: { samplesPerTransition: 2 } });
    const m = r.steps[0].metrics;
    for (const k of keys) expect(m[k], k).toBeTypeOf('number');
    expect(r.steps[0].checkpoint?.step).toBe(1);
  });

  it('rejects knobs this engine does not implement with a typed error', async () => {
    await expect(train({ algo: 'envace', steps: 1, model: { imported: 'some-model' } })).rejects.toThrow(AlgorithmError);
    await expect(train({ algo: 'sft+envace', steps: 1 })).rejects.toThrow(/sft.steps/);
    await expect(train({ algo: 'sft', steps: 1 }, { resumeFromStep: 7 })).rejects.toThrow(/no checkpoint/);
  });
});

import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../electron/contract';
import { type StepResult, envOptions, rolloutSettings, runTraining } from '../../../electron/engine/algorithms/train';
import { NativePolicy } from '../../../electron/engine/algorithms/policy';
import { evaluatePolicy } from '../../../electron/engine/algorithms/evaluate';
import { getEnv } from '../../../electron/engine/envs/registry';
import { AlgorithmError } from '../../../electron/engine/algorithms/errors';
import { roleAdvantages } from '../../../electron/engine/algorithms/advantages';

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
  let baseline: StepResult | undefined;
  const logs: string[] = [];
  const controller = new AbortController();
  const out = await runTraining(RunConfig.parse({ ...base, ...overrides }), {
    runDir,
    resumeFromStep: opts.resumeFromStep,
    resumeFromDir: opts.resumeFromDir,
    signal: controller.signal,
    onStep: (s) => {
      // Step 0 is the evaluation before training (evalEvery > 0, fresh runs): kept apart from the trained steps.
      if (s.step === 0) baseline = s;
      else steps.push(s);
      if (s.step === opts.abortAfter) controller.abort();
    },
    onLog: (_l, m) => logs.push(m),
    onProgress: () => {},
  });
  return { ...out, steps, baseline, logs, runDir };
}

/** Metrics that measure wall time differ between identical runs; everything else must not. */
const deterministic = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !/_ms$|per_s$/.test(k)));

// The SFT model several tests start from: trained once, on first use.
const sftSettings = {
  sft: { worldModelLoss: false, steps: 400 },
  rollout: { ...base.rollout, k: 1, tasksPerStep: 8, maxTokensPerTurn: 96, maxObservationTokens: 32 },
};
let sftRun: ReturnType<typeof train> | undefined;
const trainedSft = () => (sftRun ??= train({ ...sftSettings, algo: 'sft', steps: 400, evalEvery: 400, checkpointEvery: 400 }));

describe('runTraining end to end on nano', () => {
  it('SFT on expert demonstrations lifts held-out success and solves training look-ups, unlike the untrained model', async () => {
    const untrained = await train({ ...sftSettings, algo: 'sft', steps: 1, evalEvery: 1, optim: { lr: 1e-9, warmupSteps: 0 } });
    const sft = await trainedSft();
    const before = untrained.steps[0].metrics;
    const after = sft.steps[sft.steps.length - 1].metrics;
    expect(after.loss).toBeLessThan(sft.steps[0].metrics.loss / 10);
    // Held-out tasks (unseen users), evaluated by the loop in the real env.
    expect(after['eval/invalid_action_rate']).toBeLessThan(before['eval/invalid_action_rate'] - 0.15);
    // Thin but real: 1–4 of 50 held-out tasks solved for seeds 3, 4, 5 (the untrained model solves none).
    expect(after['eval/success']).toBeGreaterThan(before['eval/success']);
    expect(after['eval/score']).toBeGreaterThan(before['eval/score']);
    // Training tasks, evaluated from the saved checkpoints: the round trip through disk is part of the test.
    const trainSuccess = async (dir: string) => {
      const cfg = RunConfig.parse({ ...base, ...sftSettings, algo: 'sft' });
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

  it('sft+envace forked after SFT: the envace stage rehearses (no env calls), trains both roles, reports and checkpoints', async () => {
    const sft = await trainedSft();
    const r = await train(
      {
        ...sftSettings,
        algo: 'sft+envace',
        steps: 3,
        checkpointEvery: 2,
        rollout: { ...sftSettings.rollout, k: 4, tasksPerStep: 2, temperature: 0.7 },
      },
      { resumeFromDir: sft.steps[399].checkpoint!.path },
    );
    expect(r.finalStep).toBe(403);
    expect(r.steps.map((s) => s.step)).toEqual([401, 402, 403]);
    expect(r.steps.filter((s) => s.checkpoint).map((s) => s.checkpoint!.step)).toEqual([402, 403]);
    expect(readdirSync(join(r.runDir, 'checkpoints')).sort()).toEqual(['step-402', 'step-403']);
    const rl = r.steps;
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
    // Some groups have a reward spread, so the check below is not a check of zeros.
    expect(rl.flatMap((s) => s.rollouts).some((ro) => ro.reward! > 0)).toBe(true);
    // The stored advantages are the role-wise GRPO ones of each task's group of K rollouts.
    for (const s of rl) {
      const byTask = new Map<string, typeof s.rollouts>();
      for (const ro of s.rollouts) byTask.set(ro.taskId, [...(byTask.get(ro.taskId) ?? []), ro]);
      for (const group of byTask.values()) {
        const outputs = group.flatMap((ro, i) =>
          ro.turns.filter((t) => t.logprobs !== null).map((t) => ({ rollout: i, role: t.role as 'act' | 'rehearse', t })),
        );
        const expected = roleAdvantages(
          group.map((ro) => ro.reward!),
          outputs,
        );
        outputs.forEach((o, j) => {
          const adv = Array.from(o.t.advantages!);
          expect(adv[1]).toBeCloseTo(expected[j], 6); // the first generated token (index 0 is the role marker)
          expect(adv.every((a, i) => i === 0 || a === adv[1] || (i === adv.length - 1 && a === 0))).toBe(true);
        });
      }
    }
  });

  it('envace with the simulator rehearse prompt trains simulator rows under the Rehearse advantage', async () => {
    const sft = await trainedSft();
    const r = await train(
      {
        ...sftSettings,
        algo: 'sft+envace',
        steps: 3,
        rollout: { ...sftSettings.rollout, k: 4, tasksPerStep: 2, temperature: 0.7, rehearsePrompt: 'simulator' },
      },
      { resumeFromDir: sft.steps[399].checkpoint!.path },
    );
    expect(r.steps.every((s) => s.metrics.env_calls === 0)).toBe(true);
    const rehearsed = r.steps.flatMap((s) => s.rollouts.flatMap((ro) => ro.turns.filter((t) => t.role === 'rehearse')));
    expect(rehearsed.length).toBeGreaterThan(0);
    // In the actor's stream the observation is given text (generated in the simulator row).
    expect(rehearsed.every((t) => t.logprobs === null)).toBe(true);
    expect(r.steps.some((s) => typeof s.metrics['reward/rehearse'] === 'number')).toBe(true);
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

  it('micro-batching changes memory, not the update; PPO epochs are optimiser steps over one batch', async () => {
    const sft = { algo: 'sft' as const, steps: 2 };
    const whole = await train({ ...sft, optim: { ...base.optim, microBatchTokens: 1 << 16 } });
    const split = await train({ ...sft, optim: { ...base.optim, microBatchTokens: 16 } });
    split.steps.forEach((s, i) => {
      expect(s.metrics.loss).toBeCloseTo(whole.steps[i].metrics.loss, 4);
      expect(s.metrics.grad_norm).toBeCloseTo(whole.steps[i].metrics.grad_norm, 4);
    });
    const epochs = await train({ algo: 'envace', steps: 1, optim: { ...base.optim, ppoEpochs: 3 } });
    const state = JSON.parse(readFileSync(join(epochs.steps[0].checkpoint!.path, 'run_state.json'), 'utf8'));
    expect(state).toMatchObject({ step: 1, optimizerStep: 3 });
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
    if (algo === 'paw') expect(m['paw/selected']).toBe(Math.ceil(0.75 * m['paw/transitions']));
    expect(r.steps[0].checkpoint?.step).toBe(1);
  });

  it.each(['grpo-real', 'paw'] as const)('%s: a step whose every prompt is longer than the context trains nothing and goes on, with a warning', async (algo) => {
    // retail's 16 tools as full schemas are about 3,000 tokens: no prompt fits nano's 256.
    const r = await train({ algo, steps: 2, rollout: { ...base.rollout, toolSchemas: 'full' } });
    expect(r.steps.map((s) => s.step)).toEqual([1, 2]);
    for (const s of r.steps) expect(s.metrics.train_tokens).toBe(0);
    expect(r.logs.filter((l) => /step \d: none of its \d+ rows fits the context of 256 tokens/.test(l))).toHaveLength(2);
  });

  it('RL draws only training tasks whose prompt fits the context, and says how many it leaves out', async () => {
    // bfcl gives each task its own functions: with full schemas some prompts fit nano's 256 tokens, some do not.
    const r = await train({ env: 'bfcl', algo: 'grpo-real', steps: 3, rollout: { ...base.rollout, maxTurns: 1, toolSchemas: 'full' } });
    const said = r.logs.find((l) => l.startsWith('rl: '));
    expect(said).toMatch(/^rl: \d+ of \d+ training tasks have a prompt longer than the context of 256 tokens; RL draws from the other \d+$/);
    expect(r.logs.filter((l) => /none of its \d+ rows fits the context/.test(l))).toEqual([]);
    for (const s of r.steps) expect(s.metrics.train_tokens).toBeGreaterThan(0);
    // Every rollout acted: none was ended by its prompt before a first act.
    for (const rollout of r.steps.flatMap((s) => s.rollouts)) expect(rollout.turns.some((t) => t.role === 'act'), rollout.taskId).toBe(true);
  });

  it('rejects knobs this engine does not implement with a typed error', async () => {
    await expect(train({ algo: 'envace', steps: 1, model: { imported: 'some-model' } })).rejects.toThrow(AlgorithmError);
    await expect(train({ algo: 'sft+envace', steps: 1 })).rejects.toThrow(/sft.steps/);
    await expect(train({ algo: 'sft', steps: 1 }, { resumeFromStep: 7 })).rejects.toThrow(/no checkpoint/);
  });
});

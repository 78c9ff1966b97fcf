// Off-policy bias at T ≠ 1 (issue "Agents that learn", RL mechanics 1): rollouts sampled at T = 0.7
// record log-probs of the distribution they sampled, and the trainer scores π_θ at the same T, so the
// first (on-policy) update reads ratio 1 and clips nothing. Each side ignoring T is checked to move the
// ratio, so this test cannot pass with T dropped on either side.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectiveConfig, TrainBatch } from '../../../../native-models';
import { RunConfig } from '../../../../electron/contract';
import { microBatches, pgRow } from '../../../../electron/engine/algorithms/batch';
import { RunContext } from '../../../../electron/engine/algorithms/context';
import { NativePolicy } from '../../../../electron/engine/algorithms/policy';
import { type RolloutSettings, runRollouts } from '../../../../electron/engine/algorithms/rollout';
import { getEnv } from '../../../../electron/engine/envs/registry';
import type { ToolEnv } from '../../../../electron/engine/envs/types';

const T = 0.7;
const settings: RolloutSettings = {
  maxTurns: 2,
  maxTokensPerTurn: 24,
  maxObservationTokens: 24,
  temperature: T,
  topP: 1,
  pReal: 0,
  toolSchemas: 'none',
  rehearsePrompt: 'inline',
};

let env: ToolEnv;
let policy: NativePolicy;
let batches: TrainBatch[];
let dir: string;

beforeAll(async () => {
  env = await getEnv('retail', { worldSize: 5, counts: { train: 4, heldout: 1, ood: 0 } });
  const tasks = env.tasks('train').map((t) => env.task(t.id));
  const corpus = [env.description, ...tasks.map((t) => t.instruction)];
  policy = await NativePolicy.create({ preset: 'nano', corpus, seed: 7, optimizer: { lr: 3e-3, warmupSteps: 0 }, knobs: {} });
  // A freshly initialised model is nearly uniform, where T barely matters; a little SFT on the env's
  // texts makes it peaked, as a trained policy is, so ignoring T shows in the ratio.
  const rows = corpus.map((t) => policy.tokenizer.encode(t).slice(0, 128)).filter((r) => r.length > 8);
  for (let i = 0; i < 30; i++) await policy.trainStep([{ tokens: rows, sftMask: rows.map((r) => r.map(() => 1)) }], { sft: { aggregation: 'token-mean' } });
  const results = await runRollouts(policy, env, tasks.flatMap((task) => [task, task].map(() => ({ task, mode: 'rehearse' as const }))), settings, 11, 'ratio-test');
  // Every generated token trained, with advantages of both signs (so the surrogate is not flat).
  results.forEach((r, i) => r.segments.forEach((s) => s.logprobs.length && (s.advantage = i % 2 ? 1 : -1)));
  batches = microBatches(results.map((r) => pgRow(r.segments)), 4096);
  expect(batches.flatMap((b) => b.pgMask!.flat()).filter(Boolean).length).toBeGreaterThan(50);
  // Each check below starts from the weights the rollouts were sampled with.
  dir = mkdtempSync(join(tmpdir(), 'envace-ratio-'));
  policy.save(dir);
});

afterAll(async () => {
  await policy?.release();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const pg = (temperature?: number): ObjectiveConfig => ({ pg: { aggregation: 'token-mean', ...(temperature === undefined ? {} : { temperature }) } });

describe('importance ratio at sampling temperature 0.7', () => {
  it('the first train step on its own rollouts reads ratio_mean 1 and clip_frac 0', async () => {
    // The objective every RL loop trains with, from a run whose rollouts sample at T.
    const config = RunConfig.parse({ env: 'retail', model: { preset: 'nano' }, rollout: { temperature: T } });
    const ctx = new RunContext(config, env, [], [], policy, settings, { runDir: dir, signal: new AbortController().signal, onStep: () => {}, onLog: () => {}, onProgress: () => {} }, []);
    expect(ctx.pgObjective().pg?.temperature).toBe(T);
    const stats = await policy.trainStep(batches, ctx.pgObjective());
    console.log(`T = ${T}: ratio_mean ${stats.ratioMean}, clip_frac ${stats.clipFrac}`);
    expect(Math.abs(stats.ratioMean! - 1)).toBeLessThan(1e-4);
    expect(stats.clipFrac).toBe(0);
  });

  it('a trainer scoring π_θ at T = 1 against them does not (the trainer side must use T)', async () => {
    policy.load(dir);
    const stats = await policy.trainStep(batches, pg());
    console.log(`trainer at T = 1: ratio_mean ${stats.ratioMean}, clip_frac ${stats.clipFrac}`);
    expect(Math.abs(stats.ratioMean! - 1)).toBeGreaterThan(1e-3);
    expect(stats.clipFrac).toBeGreaterThan(0);
  });

  it('T = 1 log-probs recorded as π_old do not either (the sampling side must use T)', async () => {
    policy.load(dir);
    // What generation recorded before: the model's own T = 1 log-probs of the same tokens.
    const untempered = await Promise.all(batches.map(async (b) => ({ ...b, oldLogprobs: await policy.logprobs(b.tokens) })));
    const stats = await policy.trainStep(untempered, pg(T));
    console.log(`π_old at T = 1: ratio_mean ${stats.ratioMean}, clip_frac ${stats.clipFrac}`);
    expect(Math.abs(stats.ratioMean! - 1)).toBeGreaterThan(1e-3);
    expect(stats.clipFrac).toBeGreaterThan(0);
  });
});

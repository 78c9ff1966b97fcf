import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import { summarize } from '../../electron/engine/experiment/report';
import { type ExperimentProgress, type ExperimentResult, runExperiment } from '../../electron/engine/experiment/runner';
import { SUITES, type Suite } from '../../electron/engine/experiment/suite';
import { tempHome } from '../helpers/engine';

// Micro suite: one env, one seed, three methods, a few steps — the whole path through the engine.
const micro: Suite = {
  name: 'micro',
  envs: [{ ...SUITES.quick.envs[0], rollout: { ...SUITES.quick.envs[0].rollout, tasksPerStep: 2 }, sftSteps: undefined, evalLimit: undefined }],
  seeds: [3],
  methods: ['sft', 'grpo-real', 'envace'],
  sftSteps: 12,
  rlSteps: 2,
  rwmlShare: 0.5,
  evalLimit: 3,
  testTime: { modes: ['sequential'], rehearsals: [1] },
  fidelityEvery: 1,
  fidelitySamples: 2,
};

const home = tempHome('envace-experiment-');
let engine: Engine;
let api: WorkbenchApi;
let result: ExperimentResult;
const progress: ExperimentProgress[] = [];

beforeAll(async () => {
  engine = createEngine({ home });
  api = inProcessClient(engine);
  result = await runExperiment(api, micro, { onProgress: (p) => progress.push(p) });
}, 120_000);

afterAll(async () => {
  await engine.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('envace experiment, micro suite end to end', () => {
  it('trains the planned runs and measures every variant once', () => {
    expect(result.failures).toEqual([]);
    const keys = result.measurements.map(
      (m) => `${m.variant.method}${m.variant.testTime ? `+${m.variant.testTime.mode}${m.variant.testTime.rehearsals}` : ''}`,
    );
    expect(keys).toEqual(['sft', 'envace', 'envace+sequential1', 'grpo-real']);
    const rows = summarize(result).rows;
    expect(rows.map((r) => r.label)).toEqual(['SFT only', 'grpo-real', 'envace', 'envace + TT sequential N=1']);
    for (const r of rows) {
      expect(r.n).toBe(1);
      expect(r.success!.std).toBeNull();
      expect(r.success!.mean).toBeGreaterThanOrEqual(0);
    }
  });

  it('figures come from the store: evaluations as stored, env calls as the sum of the stored metric', async () => {
    const { items } = await api.call('evals.list', {});
    for (const m of result.measurements) {
      const stored = items.find((e) => e.runId === m.runId && e.step === m.step && e.rehearsals === (m.variant.testTime?.rehearsals ?? 0));
      expect(stored, `${m.variant.method} eval`).toBeDefined();
      expect(stored!.tasks).toBe(micro.evalLimit);
      expect([m.success, m.meanScore, m.envCallsPerTask, m.fidelity]).toEqual([
        stored!.success,
        stored!.meanScore,
        stored!.envCallsPerTask,
        stored!.fidelity,
      ]);
    }
    const envace = result.measurements.find((m) => m.variant.method === 'envace' && !m.variant.testTime)!;
    const grpo = result.measurements.find((m) => m.variant.method === 'grpo-real')!;
    const sft = result.measurements.find((m) => m.variant.method === 'sft')!;
    // SFT only is the envace run's own SFT checkpoint.
    expect(sft.runId).toBe(envace.runId);
    expect(sft.step).toBe(micro.sftSteps);
    expect(envace.step).toBe(micro.sftSteps + micro.rlSteps);
    // Rehearsal-only RL spends no env calls: its RL-stage rollouts are all rehearsed.
    // Evaluation rollouts are stored under the run too; the evaluations name them.
    const evalRollouts = new Set(items.flatMap((e) => e.perTask.map((t) => t.rolloutId)));
    const rollouts = async (runId: string, fromStep: number) =>
      (await api.call('trajectories.list', { runId, limit: 1000 })).items.filter(
        (r) => !evalRollouts.has(r.id) && r.step !== null && r.step >= fromStep,
      );
    const envaceRl = await rollouts(envace.runId, micro.sftSteps + 1);
    expect(envaceRl.length).toBeGreaterThan(0);
    expect(envaceRl.every((r) => r.mode === 'rehearse' && r.envCalls === 0)).toBe(true);
    expect(envace.trainEnvCalls).toBe(0);
    // grpo-real trains on real rollouts; its training env calls are exactly what its stored rollouts made.
    const grpoRl = (await rollouts(grpo.runId, grpo.step - micro.rlSteps + 1)).filter((r) => r.step! <= grpo.step);
    expect(grpoRl.length).toBeGreaterThan(0);
    expect(grpoRl.every((r) => r.mode === 'real')).toBe(true);
    expect(grpo.trainEnvCalls).toBe(grpoRl.reduce((a, r) => a + r.envCalls, 0));
    const { series } = await api.call('metrics.query', { runId: grpo.runId, keys: ['env_calls'], maxPoints: 100_000 });
    expect(grpo.trainEnvCallsTotal).toBe(series[0].values.reduce((a, b) => a + b, 0));
  });

  it('reward curves cover the RL budget of each RL method; progress named runs and steps', () => {
    const reward = result.curves.filter((c) => c.kind === 'reward');
    expect(reward.map((c) => [c.method, c.steps])).toEqual([
      ['envace', [1, 2]],
      ['grpo-real', [1, 2]],
    ]);
    for (const c of result.curves.filter((x) => x.kind === 'fidelity')) {
      expect(c.source).toBe('reality-check');
      for (const v of c.values) expect(v).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(progress.map((p) => p.run))).toEqual(new Set([1, 2]));
    expect(progress.every((p) => p.runs === 2 && p.step <= p.totalSteps && p.fraction <= 1)).toBe(true);
  });
});

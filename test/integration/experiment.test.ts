import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import type { Cell, EvalCell, RunCell } from '../../electron/engine/experiment/cells';
import { summarize } from '../../electron/engine/experiment/report';
import { type ExperimentProgress, type ExperimentResult, runExperiment } from '../../electron/engine/experiment/runner';
import { SUITES, type Suite } from '../../electron/engine/experiment/suite';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

// Micro suite: one env, one seed, three rows, a few steps — the whole path through the engine.
const quickEnv = SUITES.quick.envs[0];
const micro: Suite = {
  name: 'micro',
  envs: [{ ...quickEnv, rollout: { ...quickEnv.rollout, k: 2, tasksPerStep: 2 }, sftRows: 4, sftSteps: undefined, evalLimit: undefined, trainTasks: 200 }],
  seeds: [3],
  methods: ['sft', 'grpo-real', 'envace'],
  sftSteps: 12,
  rlSteps: 2,
  rwmlShare: 0.5,
  evalLimit: 3,
  testTime: { modes: ['sequential'], rehearsals: [1] },
  memoryAwareFraction: 0.5,
  fidelityEvery: 0,
  fidelitySamples: 1,
  errorRollouts: 20,
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
}, patience(180_000));

afterAll(async () => {
  await engine.close();
  fs.rmSync(home, { recursive: true, force: true });
});

const runs = (cells: readonly Cell[]) => cells.filter((c): c is RunCell => c.kind === 'run');
const evals = (cells: readonly Cell[]) => cells.filter((c): c is EvalCell => c.kind === 'eval');

describe('envace experiment, micro suite end to end', () => {
  it('one SFT run; each method a run of the RL budget started from its checkpoint; every cell measured once', async () => {
    expect(result.failures).toEqual([]);
    expect(runs(result.cells).map((r) => [r.method, r.step])).toEqual([
      ['sft', 12],
      ['grpo-real', 2],
      ['envace', 2],
    ]);
    const sft = runs(result.cells)[0];
    for (const r of runs(result.cells).slice(1)) expect((await api.call('runs.get', { id: r.runId })).config.initFrom).toEqual({ runId: sft.runId, step: 12 });
    expect(evals(result.cells).map((c) => c.key)).toEqual([
      'retail/3/sft/heldout',
      'retail/3/sft/train',
      'retail/3/sft+tt-sequential-1/heldout',
      'retail/3/grpo-real/heldout',
      'retail/3/grpo-real/train',
      'retail/3/envace/heldout',
      'retail/3/envace/train',
      'retail/3/envace+tt-sequential-1/heldout',
    ]);
    const rows = summarize(result).rows;
    expect(rows.map((r) => r.label)).toEqual(['SFT only', 'grpo-real', 'envace', 'SFT only + TT sequential N=1', 'envace + TT sequential N=1']);
    expect(rows[0].heldout.deltaSuccess).toBeNull();
    for (const r of rows.slice(1)) expect(r.heldout.deltaSuccess!.signs).toHaveLength(1);
  });

  it('figures come from the store: evaluations as stored, env calls and step time as the loops logged them', async () => {
    const { items } = await api.call('evals.list', {});
    for (const c of evals(result.cells)) {
      const stored = items.find((e) => e.runId === c.runId && e.split === c.split && e.rehearsals === (c.variant.testTime?.rehearsals ?? 0));
      expect(stored, c.key).toBeDefined();
      expect(stored!.tasks).toBe(micro.evalLimit);
      expect([c.success, c.meanScore, c.envCallsPerTask, c.fidelity]).toEqual([stored!.success, stored!.meanScore, stored!.envCallsPerTask, stored!.fidelity]);
    }
    const [sft, grpo, envace] = runs(result.cells);
    // Gathering is the SFT run's (expert demonstrations); no method gathers again.
    expect(sft.gatherEnvCalls).toBeGreaterThan(0);
    expect([grpo.gatherEnvCalls, envace.gatherEnvCalls, sft.trainEnvCalls]).toEqual([0, 0, 0]);
    // Rehearsal-only RL spends no env calls; grpo-real's are what its stored training rollouts made.
    expect(envace.trainEnvCalls).toBe(0);
    const evalRollouts = new Set(items.flatMap((e) => e.perTask.map((t) => t.rolloutId)));
    const training = (await api.call('trajectories.list', { runId: grpo.runId, limit: 1000 })).items.filter((r) => !evalRollouts.has(r.id));
    expect(training.length).toBeGreaterThan(0);
    expect(grpo.trainEnvCalls).toBe(training.reduce((a, r) => a + r.envCalls, 0));
    for (const r of [grpo, envace]) {
      expect(r.timing!.steps).toBe(2);
      expect(r.timing!.stepMs).toBeGreaterThan(0);
      expect(r.timing!.generationMs! + r.timing!.envMs! + r.timing!.trainMs!).toBeCloseTo(r.timing!.stepMs!, 3);
      expect(r.groupsWithSignal).toBeGreaterThanOrEqual(0);
    }
    expect(envace.timing!.envMs).toBe(0);
    expect(grpo.realErrors!.total).toBeGreaterThan(0);
    expect(envace.imaginedErrors === null || envace.imaginedErrors.total > 0).toBe(true);
    expect(grpo.curves.map((c) => c.source)).toContain('reward/act');
    // reward/rehearse appears once a rollout reaches a rehearsed observation, which two micro steps may not.
    expect(envace.curves.map((c) => c.source)).toContain('reward/act');
  });

  it('progress named the runs; resuming with every cell stored trains and evaluates nothing, one missing cell is redone alone', async () => {
    expect(new Set(progress.map((p) => p.run))).toEqual(new Set([1, 2, 3]));
    expect(progress.every((p) => p.runs === 3 && p.step <= p.totalSteps && p.fraction <= 1)).toBe(true);
    const before = (await api.call('runs.list', {})).total;
    const evalsBefore = (await api.call('evals.list', {})).items.length;
    const again = await runExperiment(api, micro, { done: result.cells });
    expect(again.cells).toHaveLength(result.cells.length);
    expect((await api.call('runs.list', {})).total).toBe(before);
    expect((await api.call('evals.list', {})).items.length).toBe(evalsBefore);
    const fresh: Cell[] = [];
    await runExperiment(api, micro, { done: result.cells.filter((c) => c.key !== 'retail/3/grpo-real/train'), onCell: (c) => fresh.push(c) });
    expect(fresh.map((c) => c.key)).toEqual(['retail/3/grpo-real/train']);
    expect((await api.call('runs.list', {})).total).toBe(before);
  });
});

import { describe, expect, it } from 'vitest';
import { RunConfig, plannedSteps } from '../../../../electron/contract';
import { planRuns, variantKey, warmStarted } from '../../../../electron/engine/experiment/plan';
import { SUITES, type Suite, SuiteError, checkSuite, rwmlSplit, suiteByName } from '../../../../electron/engine/experiment/suite';

const suite: Suite = {
  ...SUITES.quick,
  name: 'test',
  envs: [{ ...SUITES.quick.envs[0], sftSteps: undefined, evalLimit: undefined }],
  seeds: [7],
  sftSteps: 30,
  rlSteps: 6,
  rwmlShare: 0.5,
  testTime: { modes: ['parallel', 'sequential'], rehearsals: [1, 2] },
};

describe('planRuns', () => {
  const runs = planRuns(suite, suite.envs[0], 7);

  it('every run is a valid run config with the same seed, env, model and SFT warm start', () => {
    expect(runs.map((r) => r.config.algo)).toEqual(['sft+envace', 'grpo-real', 'paw', 'rwml+grpo-real']);
    for (const r of runs) {
      const c = RunConfig.parse(r.config);
      expect(c).toMatchObject({ env: 'retail', seed: 7, model: { preset: 'nano' }, sft: { steps: 30 } });
      expect(c.rollout).toEqual(RunConfig.parse(runs[0].config).rollout);
      // The SFT checkpoint exists because checkpoints fall on multiples of sftSteps.
      expect(c.checkpointEvery).toBe(30);
    }
  });

  it('the same RL budget after SFT for every method; RWML splits it between its two stages', () => {
    expect(runs.map((r) => r.plannedSteps)).toEqual([36, 36, 36, 36]);
    const envace = RunConfig.parse(runs[0].config);
    expect(plannedSteps(envace)).toBe(36);
    const rwml = RunConfig.parse(runs[3].config);
    expect(rwml.rwml.stageSteps + rwml.steps).toBe(6);
    expect(rwmlSplit(suite)).toEqual({ rwmlSteps: 3, policySteps: 3 });
    expect(rwmlSplit({ ...suite, rlSteps: 2, rwmlShare: 0.9 })).toEqual({ rwmlSteps: 1, policySteps: 1 });
  });

  it('SFT only is the envace run’s SFT checkpoint; envace is evaluated plain and with each test-time setting', () => {
    expect(runs[0].evals.map((e) => [variantKey(e.variant), e.at])).toEqual([
      ['sft', 'sft'],
      ['envace', 'last'],
      ['envace+tt-parallel-1', 'last'],
      ['envace+tt-parallel-2', 'last'],
      ['envace+tt-sequential-1', 'last'],
      ['envace+tt-sequential-2', 'last'],
    ]);
    expect(runs[0].realityCheck).toBe(true);
    expect(runs.slice(1).map((r) => r.evals.map((e) => variantKey(e.variant)))).toEqual([['grpo-real'], ['paw'], ['rwml']]);
  });

  it('an env’s own SFT steps and eval limit win over the suite’s', () => {
    const [run] = planRuns(suite, { ...suite.envs[0], sftSteps: 50, evalLimit: 4 }, 7);
    expect(run).toMatchObject({ sftSteps: 50, evalLimit: 4, plannedSteps: 56 });
    expect(RunConfig.parse(run.config)).toMatchObject({ sft: { steps: 50 }, checkpointEvery: 50 });
    expect(runs[0]).toMatchObject({ sftSteps: 30, evalLimit: suite.evalLimit });
  });

  it('without envace, SFT only gets its own sft run', () => {
    const only = planRuns({ ...suite, methods: ['sft', 'grpo-real'] }, suite.envs[0], 1);
    expect(only.map((r) => [r.config.algo, r.plannedSteps, r.rlSteps])).toEqual([
      ['sft', 30, 0],
      ['grpo-real', 36, 6],
    ]);
  });

  it('warmStarted: a run as long as planned had its SFT stage; one of only the RL steps did not', () => {
    const grpo = runs[1];
    expect(warmStarted(grpo, 36)).toBe(true);
    expect(warmStarted(grpo, 6)).toBe(false);
    expect(warmStarted(runs[0], 36)).toBe(true);
  });
});

describe('suites', () => {
  it('quick and full are valid and every config they plan parses', () => {
    for (const s of [SUITES.quick, SUITES.full]) {
      checkSuite(s);
      for (const env of s.envs) for (const r of planRuns(s, env, s.seeds[0])) expect(RunConfig.safeParse(r.config).success).toBe(true);
    }
    expect(SUITES.full.seeds.length).toBeGreaterThan(SUITES.quick.seeds.length);
    expect(SUITES.full.rlSteps).toBeGreaterThan(SUITES.quick.rlSteps);
  });

  it('bad suites and names are refused with the reason', () => {
    expect(() => suiteByName('huge')).toThrow(SuiteError);
    expect(() => checkSuite({ ...suite, seeds: [] })).toThrow(/at least one seed/);
    expect(() => checkSuite({ ...suite, seeds: [1, 1] })).toThrow(/distinct/);
    expect(() => checkSuite({ ...suite, sftSteps: 0 })).toThrow(/sftSteps/);
    expect(() => checkSuite({ ...suite, rlSteps: 1 })).toThrow(/rlSteps ≥ 2/);
    expect(() => checkSuite({ ...suite, methods: ['bogus' as never] })).toThrow(/unknown method "bogus"/);
    expect(() => checkSuite({ ...suite, envs: [{ ...suite.envs[0], sftSteps: 0 }] })).toThrow(/retail: sftSteps/);
    expect(() => checkSuite({ ...suite, testTime: { modes: ['parallel'], rehearsals: [0] } })).toThrow(/1–16/);
  });
});

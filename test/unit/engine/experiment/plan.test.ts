import { describe, expect, it } from 'vitest';
import { RunConfig, plannedSteps } from '../../../../electron/contract';
import { variantLabel, variantOrder } from '../../../../electron/engine/experiment/aggregate';
import { estimateSuite } from '../../../../electron/engine/experiment/estimate';
import { planSeed, planSuite, sftTestTimeVariant, variantKey, withInit } from '../../../../electron/engine/experiment/plan';
import { REHEARSING, SUITES, type Suite, SuiteError, checkSuite, rwmlSplit, suiteByName } from '../../../../electron/engine/experiment/suite';

const suite: Suite = {
  ...SUITES.quick,
  name: 'test',
  envs: [{ ...SUITES.quick.envs[0], sftSteps: undefined, evalLimit: undefined }],
  seeds: [7, 8],
  sftSteps: 30,
  rlSteps: 6,
  rwmlShare: 0.5,
  testTime: { modes: ['parallel', 'sequential'], rehearsals: [1, 2] },
};

describe('planSeed', () => {
  const seed = planSeed(suite, suite.envs[0], 7);
  const configs = seed.methods.map((m) => RunConfig.parse(withInit(m, 'run-sft', 30)));

  it('one SFT run per seed; every other method is its own run that starts from that run’s last checkpoint', () => {
    expect(RunConfig.parse(seed.sft.config)).toMatchObject({ algo: 'sft', steps: 30, seed: 7, checkpointEvery: 30, sft: { worldModelLoss: true } });
    expect(seed.sft.config.initFrom).toBeUndefined();
    expect(seed.methods.map((m) => m.method)).toEqual(['grpo-real', 'envace', 'envace-no-rehearse-loss', 'envace-shared-baseline', 'paw', 'paw-ce', 'rwml']);
    for (const c of configs) {
      expect(c.initFrom).toEqual({ runId: 'run-sft', step: 30 });
      // No SFT of its own: the method's steps are all RL, from the shared checkpoint.
      expect(c.sft.steps).toBe(0);
      expect(c).toMatchObject({ env: 'retail', seed: 7, model: { preset: 'tiny' }, taskMix: 'lookups', worldSize: suite.envs[0].worldSize });
      expect(c.rollout).toEqual(configs[0].rollout);
      expect(c.optim).toEqual(configs[0].optim);
    }
    expect(planSuite(suite).map((s) => [s.env, s.seed, s.sft.key])).toEqual([
      ['retail', 7, 'retail/7/sft'],
      ['retail', 8, 'retail/8/sft'],
    ]);
  });

  it('equal budgets: every method trains rlSteps from the checkpoint; RWML splits them between its two stages', () => {
    expect(configs.map((c) => plannedSteps(c))).toEqual([6, 6, 6, 6, 6, 6, 6]);
    expect(seed.methods.every((m) => m.steps === 6)).toBe(true);
    const rwml = configs[6];
    expect(rwml).toMatchObject({ algo: 'rwml+grpo-real', steps: 3, rwml: { stageSteps: 3 } });
    expect(rwmlSplit({ rlSteps: 2, rwmlShare: 0.9 })).toEqual({ rwmlSteps: 1, policySteps: 1 });
    expect(configs.map((c) => [c.algo, c.paw.worldLoss])).toEqual([
      ['grpo-real', 'cmae'],
      ['envace', 'cmae'],
      ['envace-no-rehearse-loss', 'cmae'],
      ['envace-shared-baseline', 'cmae'],
      ['paw', 'cmae'],
      ['paw', 'ce'],
      ['rwml+grpo-real', 'cmae'],
    ]);
  });

  it('cells: each run evaluated on held-out and training tasks; envace also with each test-time setting, held-out', () => {
    // The SFT checkpoint also with the fewest rehearsals: the same held-out tasks envace's test-time rows rehearse.
    expect(seed.sft.evals.map((e) => e.key)).toEqual(['retail/7/sft/heldout', 'retail/7/sft/train', 'retail/7/sft+tt-parallel-1/heldout']);
    expect(sftTestTimeVariant({ ...suite, methods: ['sft', 'grpo-real'] })).toBeNull();
    expect(sftTestTimeVariant({ ...suite, testTime: { modes: [], rehearsals: [1] } })).toBeNull();
    const envace = seed.methods.find((m) => m.method === 'envace')!;
    expect(envace.evals.map((e) => `${variantKey(e.variant)}/${e.split}`)).toEqual([
      'envace/heldout',
      'envace/train',
      'envace+tt-parallel-1/heldout',
      'envace+tt-parallel-2/heldout',
      'envace+tt-sequential-1/heldout',
      'envace+tt-sequential-2/heldout',
    ]);
    expect(seed.methods.filter((m) => m.realityCheck).map((m) => m.method)).toEqual(['envace', 'envace-no-rehearse-loss', 'envace-shared-baseline']);
    const keys = planSuite(suite).flatMap((s) => [s.sft, ...s.methods].flatMap((m) => [m.key, ...m.evals.map((e) => e.key)]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('the SFT run can take its own batch (sftRows demonstrations a step)', () => {
    const own = planSeed({ ...suite }, { ...suite.envs[0], sftRows: 5 }, 1);
    expect(own.sft.config.rollout).toMatchObject({ k: 1, tasksPerStep: 5 });
    expect(own.methods[0].config.rollout).toMatchObject({ k: suite.envs[0].rollout.k });
  });

  it('error probes reach the SFT run only, and only where the env plan asks for them', () => {
    const probed = planSeed({ ...suite }, { ...suite.envs[0], sftErrorProbes: 0.5 }, 1);
    expect(RunConfig.parse(probed.sft.config).sft).toMatchObject({ worldModelLoss: true, errorProbes: 0.5 });
    expect(RunConfig.parse(planSeed({ ...suite }, { ...suite.envs[0], sftErrorProbes: undefined }, 1).sft.config).sft.errorProbes).toBe(0);
    expect(() => checkSuite({ ...suite, envs: [{ ...suite.envs[0], sftErrorProbes: 2 }] })).toThrow(/sftErrorProbes/);
  });

  it('an env plan can start the SFT run\'s observation loss late and size the training split, for every run of the seed', () => {
    const plan = { ...suite.envs[0], sftWorldModelLossFrom: 21, trainTasks: 321 };
    const seed = planSeed({ ...suite }, plan, 1);
    expect(RunConfig.parse(seed.sft.config).sft).toMatchObject({ worldModelLoss: true, worldModelLossFrom: 21 });
    for (const run of [seed.sft, ...seed.methods]) expect(RunConfig.parse(run.config).trainTasks).toBe(321);
    expect(RunConfig.parse(planSeed({ ...suite }, { ...suite.envs[0], sftWorldModelLossFrom: undefined }, 1).sft.config).sft).toMatchObject({ worldModelLoss: true, worldModelLossFrom: 1 });
    expect(() => checkSuite({ ...suite, envs: [{ ...plan, trainTasks: 0 }] })).toThrow(/trainTasks/);
    expect(() => checkSuite({ ...suite, envs: [{ ...plan, sftWorldModelLossFrom: 0 }] })).toThrow(/sftWorldModelLossFrom/);
  });

  it('rehearsing methods train memory-aware (a share of tasks starts from a rehearsal memory); the others do not', () => {
    const seed = planSeed({ ...suite, memoryAwareFraction: 0.25 }, suite.envs[0], 1);
    for (const run of seed.methods) expect(RunConfig.parse(run.config).testTime.memoryAwareFraction).toBe(REHEARSING.has(run.method) ? 0.25 : 0);
    expect(RunConfig.parse(seed.sft.config).testTime.memoryAwareFraction).toBe(0);
    expect(() => checkSuite({ ...suite, memoryAwareFraction: 1.5 })).toThrow(/memoryAwareFraction/);
    expect(SUITES.full.memoryAwareFraction).toBeGreaterThan(0);
  });

  it('rows in the order of the issue: SFT, grpo-real, the envace family, PaW and its CE ablation, RWML, then test-time', () => {
    expect(variantOrder(SUITES.quick).map(variantLabel)).toEqual([
      'SFT only',
      'grpo-real',
      'envace',
      'envace, no rehearse loss',
      'envace, shared baseline',
      'PaW',
      'PaW (CE world loss)',
      'RWML → grpo-real',
      'SFT only + TT parallel N=1',
      'envace + TT parallel N=1',
      'envace + TT parallel N=2',
      'envace + TT parallel N=4',
      'envace + TT sequential N=1',
      'envace + TT sequential N=2',
      'envace + TT sequential N=4',
    ]);
  });
});

describe('suites', () => {
  it('quick and full are valid, every method in both, and every config they plan parses', () => {
    for (const s of [SUITES.quick, SUITES.full]) {
      checkSuite(s);
      expect(s.methods).toHaveLength(8);
      for (const seed of planSuite(s)) {
        expect(RunConfig.safeParse(seed.sft.config).success).toBe(true);
        for (const m of seed.methods) expect(RunConfig.safeParse(withInit(m, 'run-x', seed.sft.steps)).success).toBe(true);
      }
    }
    expect(SUITES.quick.seeds).toHaveLength(2);
    expect(SUITES.full.seeds).toHaveLength(3);
    expect(SUITES.full.rlSteps).toBeGreaterThan(SUITES.quick.rlSteps);
  });

  it('sized to their time limits by the estimate: quick ≤ 20 min and full ≤ 2.5 h on a busy 2-core machine', () => {
    const quick = estimateSuite(SUITES.quick);
    const full = estimateSuite(SUITES.full);
    expect(quick.busyMinutes).toBeLessThanOrEqual(20);
    expect(full.busyMinutes).toBeLessThanOrEqual(150);
    expect(quick.busyMinutes).toBeGreaterThan(quick.idleMinutes);
    // Doubling the RL budget costs more: the estimate follows the budgets.
    expect(estimateSuite({ ...SUITES.quick, rlSteps: 16 }).rl).toBeCloseTo(2 * quick.rl, 6);
  });

  it('counts a robustness evaluation as its 3 × sizes filler cells and the memory cell beside each plain held-out evaluation', () => {
    const plain = estimateSuite(suite);
    const one = estimateSuite({ ...suite, robustness: [4] });
    const four = estimateSuite({ ...suite, robustness: [1, 4, 16, 64] });
    // Training is untouched; evaluation grows with the number of filler cells (3 per size) plus a rehearsed one.
    expect(one.sft).toBe(plain.sft);
    expect(one.rl).toBe(plain.rl);
    expect(one.evals).toBeGreaterThan(plain.evals);
    const perSize = four.evals - one.evals;
    expect(perSize).toBeGreaterThan(0);
    expect(one.evals - plain.evals).toBeGreaterThan(perSize / 3);
  });

  it('bad suites and names are refused with the reason', () => {
    expect(() => suiteByName('huge')).toThrow(SuiteError);
    expect(() => checkSuite({ ...suite, seeds: [] })).toThrow(/at least one seed/);
    expect(() => checkSuite({ ...suite, seeds: [1, 1] })).toThrow(/distinct/);
    expect(() => checkSuite({ ...suite, sftSteps: 0 })).toThrow(/sftSteps/);
    expect(() => checkSuite({ ...suite, rlSteps: 1 })).toThrow(/rlSteps ≥ 2/);
    expect(() => checkSuite({ ...suite, methods: ['bogus' as never] })).toThrow(/unknown method "bogus"/);
    expect(() => checkSuite({ ...suite, envs: [{ ...suite.envs[0], sftSteps: 0 }] })).toThrow(/retail: sftSteps/);
    expect(() => checkSuite({ ...suite, envs: [suite.envs[0], suite.envs[0]] })).toThrow(/environments must be distinct/);
    expect(() => checkSuite({ ...suite, testTime: { modes: ['parallel'], rehearsals: [0] } })).toThrow(/1–16/);
  });
});

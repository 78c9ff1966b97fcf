/**
 * Experiment suites: which environments, seeds and methods `envace experiment` compares, and the
 * one budget every method gets (algorithms.md "Evaluation and the side-by-side table"). Per env and
 * seed one SFT run is trained; every other method starts from its checkpoint (`initFrom`) with the
 * same RL budget, so a method's row is a paired difference from that checkpoint.
 */
import type { RunConfigInput } from '../../contract';
import { recommendedRecipe } from '../runs/recipes';

/**
 * The trained rows of the table, in table order. `sft` is the shared SFT checkpoint itself;
 * `paw-ce` is PaW with cross-entropy instead of CMAE (the paper's ablation); `rwml` is RWML → grpo-real.
 */
export const METHODS = ['sft', 'grpo-real', 'envace', 'envace-no-rehearse-loss', 'envace-shared-baseline', 'paw', 'paw-ce', 'rwml'] as const;
export type Method = (typeof METHODS)[number];

export const METHOD_LABELS: Record<Method, string> = {
  sft: 'SFT only',
  'grpo-real': 'grpo-real',
  envace: 'envace',
  'envace-no-rehearse-loss': 'envace, no rehearse loss',
  'envace-shared-baseline': 'envace, shared baseline',
  paw: 'PaW',
  'paw-ce': 'PaW (CE world loss)',
  rwml: 'RWML → grpo-real',
};

/** Methods that train on rehearsed rollouts: their imagined observations are reality-checked. */
export const REHEARSING: ReadonlySet<Method> = new Set(['envace', 'envace-no-rehearse-loss', 'envace-shared-baseline']);

export type RehearsalMode = 'parallel' | 'sequential';

/** One environment of a suite, with the model and rollout shape that fit it. */
export interface EnvPlan {
  env: string;
  preset: 'nano' | 'tiny' | 'small';
  worldSize: number;
  worldMode?: 'fixed' | 'procedural';
  taskMix?: 'lookups' | 'chains' | 'all';
  /** Rollout knobs shared by every method on this env (k, tasksPerStep, turn and token limits). */
  rollout: NonNullable<RunConfigInput['rollout']>;
  /** Optimiser of every run; its `stages.sft` drives the SFT run, `stages.rl` / `stages.world` the methods. */
  optim: NonNullable<RunConfigInput['optim']>;
  /** Demonstrations per SFT step (the SFT run's batch, k = 1), when not tasksPerStep × k. */
  sftRows?: number;
  /** This env's SFT steps and tasks per evaluation, when not the suite's. */
  sftSteps?: number;
  evalLimit?: number;
  /** Share of the SFT run's demonstrations with an error probe (`sft.errorProbes`; absent: none). */
  sftErrorProbes?: number;
  /** The SFT step from which the SFT run also learns the observations (`sft.worldModelLossFrom`; absent: 1). */
  sftWorldModelLossFrom?: number;
  /** Tasks in the training split (`trainTasks`; absent: the env's default). */
  trainTasks?: number;
}

export interface Suite {
  name: string;
  envs: EnvPlan[];
  seeds: number[];
  methods: Method[];
  /** Steps of each seed's SFT run (the checkpoint every method starts from). */
  sftSteps: number;
  /** RL steps every method trains from that checkpoint (RWML's world-model stage counts inside it). */
  rlSteps: number;
  /** Share of `rlSteps` that RWML → grpo-real spends on its world-model stage. */
  rwmlShare: number;
  /** Tasks per evaluation, on the held-out split and on the training split alike (real environment). */
  evalLimit: number;
  /** Test-time private rehearsal variants evaluated for envace (held-out only). */
  testTime: { modes: RehearsalMode[]; rehearsals: number[] };
  /**
   * Share of a rehearsing method's RL tasks that start from a rehearsal memory
   * (`testTime.memoryAwareFraction`, as in the recipes), so that envace's test-time rows are not the
   * first time its policy sees a memory. Absent (suites stored before it existed): 0.
   */
  memoryAwareFraction?: number;
  /** Reality-check rehearsed rollouts every this many RL steps besides the first and last (0 = those two only). */
  fidelityEvery: number;
  /** Rehearsed rollouts reality-checked per checked step. */
  fidelitySamples: number;
  /** At most this many training rollouts of a run are read for the "Error" observation rates. */
  errorRollouts: number;
  /**
   * Filler sizes of a robustness evaluation (issue 21) on every plain held-out cell; its worst drop
   * becomes a column. Opt-in: it costs 2 + 3 × sizes evaluations per cell instead of one. Absent: none.
   */
  robustness?: number[];
}

export class SuiteError extends Error {
  override name = 'SuiteError';
}

/**
 * The env plan that trains what `envace train --env ENV --preset PRESET` trains: the recipe's world,
 * rollout shape, optimiser (RWML's world-model stage at the recipe's RL rate) and SFT stage — one
 * definition, so a finding about what trains reaches the recipes and the experiment at once.
 */
function recipePlan(env: string, preset: EnvPlan['preset']): EnvPlan {
  // The quick variant: the experiment's figures (docs/experiment) were taken on the one-template recipe.
  const c = recommendedRecipe(env, { preset }, 'quick').config;
  const { rollout, optim, sft, worldSize } = c;
  if (!rollout || !optim || !sft || worldSize === undefined)
    throw new SuiteError(`recipe ${env}/${preset} leaves its world size, rollout, optimiser or SFT stage to the defaults`);
  return {
    env,
    preset,
    worldSize,
    worldMode: c.worldMode,
    taskMix: c.taskMix,
    trainTasks: c.trainTasks,
    rollout,
    optim: { ...optim, stages: { ...optim.stages, world: optim.stages?.rl } },
    sftRows: (rollout.k ?? 1) * (rollout.tasksPerStep ?? 1),
    sftSteps: sft.steps,
    sftWorldModelLossFrom: sft.worldModelLossFrom,
  };
}

/**
 * full's env: the retail/tiny recipe (recipes.ts) — procedural look-ups with fresh users, orders and
 * items in every task, so held-out success means copying ids from the context, which two-layer tiny
 * learns in a few hundred SFT steps on the act tokens alone. Its observation loss joins at step 401:
 * from step 1 it kept tiny from copying at all, while added after copying it kept the copying (57 %
 * held-out) and gave the rehearsals a world model (fidelity 0.48 against 0.01 for act-only SFT) —
 * without one, every rehearsing row would rehearse noise. The first full ran on the fixed world,
 * where six-layer tiny solved almost no held-out task (docs/experiment/full-2026-12-01).
 */
const retailTiny = recipePlan('retail', 'tiny');
/**
 * quick's env: full's, shorter — 400 SFT steps (observations from 301), 20 tasks per evaluation, half
 * the demonstrations with an error probe. Until 2026-12-02 quick ran nano, whose SFT checkpoint ended
 * at 0.00–0.20 held-out (0.00 on both seeds in its last run): no room to see anything move. Two-layer
 * tiny copies by 250–500 steps, so the checkpoint starts mid-range.
 */
const retailTinyQuick: EnvPlan = { ...retailTiny, sftSteps: 400, sftWorldModelLossFrom: 301, sftErrorProbes: 0.5 };

/**
 * full is retail alone. Household was dropped from it when it first ran: a tiny SFT run was
 * ≈ 9 min here while an RL run and an evaluation are seconds, so the time went into 40 tasks per
 * evaluation on one env (±0.08 on a success rate, where 20 tasks left ±0.11) rather than 20 on two.
 */
const fullEnvs = [retailTiny];

const TEST_TIME = { modes: ['parallel', 'sequential'] as RehearsalMode[], rehearsals: [1, 2, 4] };

/**
 * Budgets sized by estimate.ts from the bench throughputs. Measured on a quiet 2-core machine on
 * 2026-12-02 (README "The side-by-side experiment"): quick 9.5 min (the estimate says 10.2), full
 * 17.2 min (10.7 training, 3.6 evaluating; the estimate says 21). Limits: 20 min and 2.5 h.
 */
export const SUITES: Record<'quick' | 'full', Suite> = {
  quick: {
    name: 'quick',
    envs: [retailTinyQuick],
    seeds: [1, 2],
    methods: [...METHODS],
    sftSteps: 400,
    rlSteps: 8,
    rwmlShare: 0.5,
    evalLimit: 20,
    testTime: TEST_TIME,
    memoryAwareFraction: 0.25,
    fidelityEvery: 0,
    fidelitySamples: 2,
    errorRollouts: 200,
  },
  full: {
    name: 'full',
    envs: fullEnvs,
    seeds: [1, 2, 3],
    methods: [...METHODS],
    sftSteps: 400,
    rlSteps: 10,
    rwmlShare: 0.5,
    evalLimit: 40,
    testTime: TEST_TIME,
    memoryAwareFraction: 0.25,
    fidelityEvery: 4,
    fidelitySamples: 2,
    errorRollouts: 300,
  },
};

export function suiteByName(name: string): Suite {
  if (name === 'quick' || name === 'full') return SUITES[name];
  throw new SuiteError(`unknown suite "${name}"; choose quick or full`);
}

/** Refuse a suite that cannot produce a table, with the field that is wrong. */
export function checkSuite(s: Suite): void {
  const fail = (msg: string) => {
    throw new SuiteError(`suite ${s.name}: ${msg}`);
  };
  if (!s.envs.length) fail('needs at least one environment');
  if (new Set(s.envs.map((e) => e.env)).size !== s.envs.length) fail('environments must be distinct');
  if (!s.seeds.length) fail('needs at least one seed');
  if (new Set(s.seeds).size !== s.seeds.length) fail('seeds must be distinct');
  if (!s.methods.length) fail('needs at least one method');
  for (const m of s.methods) if (!METHODS.includes(m)) fail(`unknown method "${m}"`);
  if (!Number.isInteger(s.sftSteps) || s.sftSteps < 1) fail('sftSteps must be a positive integer (every method starts from the SFT checkpoint)');
  if (!Number.isInteger(s.rlSteps) || s.rlSteps < 1) fail('rlSteps must be a positive integer');
  if (s.methods.includes('rwml') && s.rlSteps < 2) fail('RWML → grpo-real needs rlSteps ≥ 2 (one step per stage at least)');
  if (!(s.rwmlShare > 0 && s.rwmlShare < 1)) fail('rwmlShare must lie strictly between 0 and 1');
  if (!Number.isInteger(s.evalLimit) || s.evalLimit < 1) fail('evalLimit must be a positive integer');
  if (!Number.isInteger(s.fidelityEvery) || s.fidelityEvery < 0) fail('fidelityEvery must be 0 or a positive integer');
  if (!Number.isInteger(s.errorRollouts) || s.errorRollouts < 0) fail('errorRollouts must be 0 or a positive integer');
  for (const e of s.envs) {
    if (e.sftSteps !== undefined && (!Number.isInteger(e.sftSteps) || e.sftSteps < 1)) fail(`${e.env}: sftSteps must be a positive integer`);
    if (e.evalLimit !== undefined && (!Number.isInteger(e.evalLimit) || e.evalLimit < 1)) fail(`${e.env}: evalLimit must be a positive integer`);
    if (e.sftRows !== undefined && (!Number.isInteger(e.sftRows) || e.sftRows < 1)) fail(`${e.env}: sftRows must be a positive integer`);
    if (e.sftWorldModelLossFrom !== undefined && (!Number.isInteger(e.sftWorldModelLossFrom) || e.sftWorldModelLossFrom < 1))
      fail(`${e.env}: sftWorldModelLossFrom must be a positive integer`);
    if (e.trainTasks !== undefined && (!Number.isInteger(e.trainTasks) || e.trainTasks < 1)) fail(`${e.env}: trainTasks must be a positive integer`);
    if (e.sftErrorProbes !== undefined && !(e.sftErrorProbes >= 0 && e.sftErrorProbes <= 1))
      fail(`${e.env}: sftErrorProbes must be a share in [0, 1]`);
  }
  if (s.memoryAwareFraction !== undefined && !(s.memoryAwareFraction >= 0 && s.memoryAwareFraction <= 1))
    fail('memoryAwareFraction must be a share in [0, 1]');
  if (
    s.robustness !== undefined &&
    (!s.robustness.length || s.robustness.length > 8 || s.robustness.some((n) => !Number.isInteger(n) || n < 1 || n > 512))
  )
    fail('robustness must list 1–8 filler sizes, each 1–512 tokens');
  for (const n of s.testTime.rehearsals) if (!Number.isInteger(n) || n < 1 || n > 16) fail(`test-time rehearsals must be 1–16, got ${n}`);
}

/** RWML's world-model stage and its grpo-real stage within the shared RL budget. */
export function rwmlSplit(s: Pick<Suite, 'rlSteps' | 'rwmlShare'>): { rwmlSteps: number; policySteps: number } {
  const rwmlSteps = Math.min(s.rlSteps - 1, Math.max(1, Math.round(s.rlSteps * s.rwmlShare)));
  return { rwmlSteps, policySteps: s.rlSteps - rwmlSteps };
}

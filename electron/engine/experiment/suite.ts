/**
 * Experiment suites: which environments, seeds and methods `envace experiment` compares, and the
 * one training budget every method gets (algorithms.md "Evaluation and the side-by-side table").
 */
import type { RunConfigInput } from '../../contract';

/** The methods of the side-by-side table. `rwml` is RWML → grpo-real. */
export const METHODS = ['sft', 'grpo-real', 'envace', 'paw', 'rwml'] as const;
export type Method = (typeof METHODS)[number];

export const METHOD_LABELS: Record<Method, string> = {
  sft: 'SFT only',
  'grpo-real': 'grpo-real',
  envace: 'envace',
  paw: 'PaW',
  rwml: 'RWML → grpo-real',
};

export type RehearsalMode = 'parallel' | 'sequential';

/** One environment of a suite, with the model and rollout shape that fit it. */
export interface EnvPlan {
  env: string;
  preset: 'nano' | 'tiny' | 'small';
  worldSize: number;
  /** Rollout knobs shared by every method on this env (k, tasksPerStep, turn and token limits). */
  rollout: NonNullable<RunConfigInput['rollout']>;
  optim: NonNullable<RunConfigInput['optim']>;
  /** This env's SFT warm-start steps and held-out tasks per evaluation, when not the suite's. */
  sftSteps?: number;
  evalLimit?: number;
}

export interface Suite {
  name: string;
  envs: EnvPlan[];
  seeds: number[];
  methods: Method[];
  /** SFT warm-start steps every method starts from. */
  sftSteps: number;
  /** RL steps after the warm start, the same for every RL method (RWML's stage counts inside it). */
  rlSteps: number;
  /** Share of `rlSteps` that RWML → grpo-real spends on its world-model stage. */
  rwmlShare: number;
  /** Held-out tasks per evaluation (always in the real environment). */
  evalLimit: number;
  /** Test-time private rehearsal variants evaluated for envace. */
  testTime: { modes: RehearsalMode[]; rehearsals: number[] };
  /** Reality-check rehearsed rollouts every this many RL steps for the fidelity curve (0 = never). */
  fidelityEvery: number;
  /** Rehearsed rollouts reality-checked per sampled step. */
  fidelitySamples: number;
}

export class SuiteError extends Error {
  override name = 'SuiteError';
}

const retailNano: EnvPlan = {
  env: 'retail',
  preset: 'nano',
  worldSize: 5,
  // The shape the algorithms tests train with: episodes that fit nano's 256-token context.
  rollout: { k: 2, tasksPerStep: 4, maxTurns: 3, maxTokensPerTurn: 96, maxObservationTokens: 32, temperature: 0.8, toolSchemas: 'none' },
  optim: { lr: 3e-3, warmupSteps: 2 },
  // SFT on nano is cheap (~0.1 s a step); 400 steps is where the algorithms tests see the first
  // held-out look-ups succeed.
  sftSteps: 400,
  evalLimit: 30,
};

const householdTiny: EnvPlan = {
  env: 'household',
  preset: 'tiny',
  worldSize: 3,
  // Gold plans take 2–8 calls; six turns leave the shorter half solvable at tiny's cost per token.
  rollout: { k: 2, tasksPerStep: 2, maxTurns: 6, maxTokensPerTurn: 40, maxObservationTokens: 40, temperature: 0.8, toolSchemas: 'none' },
  optim: { lr: 2e-3, warmupSteps: 2 },
  // tiny costs ~1 s a step here on 2 busy cores; test-time rehearsal evaluations dominate the rest.
  sftSteps: 150,
  evalLimit: 8,
};

/**
 * `quick` is sized to finish within about 15 minutes on a 2-core machine: it took 8.4 minutes on
 * 2 cores shared with other work (16 runs, 44 evaluations). `full` is the overnight comparison.
 */
export const SUITES: Record<'quick' | 'full', Suite> = {
  quick: {
    name: 'quick',
    envs: [retailNano, householdTiny],
    seeds: [1, 2],
    methods: [...METHODS],
    sftSteps: 150,
    rlSteps: 8,
    rwmlShare: 0.5,
    evalLimit: 12,
    testTime: { modes: ['parallel', 'sequential'], rehearsals: [1, 2, 4] },
    fidelityEvery: 2,
    fidelitySamples: 2,
  },
  full: {
    name: 'full',
    envs: [
      {
        ...retailNano,
        preset: 'tiny',
        rollout: { ...retailNano.rollout, k: 4, maxTurns: 6, maxObservationTokens: 96 },
        sftSteps: undefined,
        evalLimit: undefined,
      },
      {
        ...householdTiny,
        worldSize: 6,
        rollout: { ...householdTiny.rollout, k: 4, tasksPerStep: 4, maxTurns: 9 },
        sftSteps: undefined,
        evalLimit: undefined,
      },
    ],
    seeds: [1, 2, 3, 4, 5],
    methods: [...METHODS],
    sftSteps: 1500,
    rlSteps: 200,
    rwmlShare: 0.5,
    evalLimit: 50,
    testTime: { modes: ['parallel', 'sequential'], rehearsals: [1, 2, 4] },
    fidelityEvery: 10,
    fidelitySamples: 4,
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
  if (!s.seeds.length) fail('needs at least one seed');
  if (new Set(s.seeds).size !== s.seeds.length) fail('seeds must be distinct');
  if (!s.methods.length) fail('needs at least one method');
  for (const m of s.methods) if (!METHODS.includes(m)) fail(`unknown method "${m}"`);
  if (!Number.isInteger(s.sftSteps) || s.sftSteps < 1) fail('sftSteps must be a positive integer (every method starts from SFT)');
  if (!Number.isInteger(s.rlSteps) || s.rlSteps < 1) fail('rlSteps must be a positive integer');
  if (s.methods.includes('rwml') && s.rlSteps < 2) fail('RWML → grpo-real needs rlSteps ≥ 2 (one step per stage at least)');
  if (!(s.rwmlShare > 0 && s.rwmlShare < 1)) fail('rwmlShare must lie strictly between 0 and 1');
  if (!Number.isInteger(s.evalLimit) || s.evalLimit < 1) fail('evalLimit must be a positive integer');
  for (const e of s.envs) {
    if (e.sftSteps !== undefined && (!Number.isInteger(e.sftSteps) || e.sftSteps < 1)) fail(`${e.env}: sftSteps must be a positive integer`);
    if (e.evalLimit !== undefined && (!Number.isInteger(e.evalLimit) || e.evalLimit < 1)) fail(`${e.env}: evalLimit must be a positive integer`);
  }
  for (const n of s.testTime.rehearsals) if (!Number.isInteger(n) || n < 1 || n > 16) fail(`test-time rehearsals must be 1–16, got ${n}`);
}

/** RWML's world-model stage and its grpo-real stage within the shared RL budget. */
export function rwmlSplit(s: Suite): { rwmlSteps: number; policySteps: number } {
  const rwmlSteps = Math.min(s.rlSteps - 1, Math.max(1, Math.round(s.rlSteps * s.rwmlShare)));
  return { rwmlSteps, policySteps: s.rlSteps - rwmlSteps };
}

/**
 * Which runs an experiment trains and which cells (evaluations) each gives. Per env and seed: one
 * `sft` run, then every other method as its own run that starts from that run's last checkpoint
 * (`initFrom`) with the same RL budget, rollout shape and seed — so each method's figures pair with
 * the SFT checkpoint's on the same seed.
 */
import type { RunConfigInput } from '../../contract';
import { type EnvPlan, type Method, type RehearsalMode, type Suite, REHEARSING, rwmlSplit } from './suite';

/** A table row: a method, and for envace optionally a test-time rehearsal setting. */
export interface Variant {
  method: Method;
  testTime: { mode: RehearsalMode; rehearsals: number } | null;
}

export function variantKey(v: Variant): string {
  return v.testTime ? `${v.method}+tt-${v.testTime.mode}-${v.testTime.rehearsals}` : v.method;
}

export type Split = 'heldout' | 'train';

/** One evaluation cell of a run: a variant on a split, at the run's last checkpoint. */
export interface EvalPlan {
  key: string;
  variant: Variant;
  split: Split;
  /** Filler sizes of the cell's robustness evaluation (suite.robustness, plain held-out cells); absent: none. */
  robustness?: number[];
}

export interface RunPlan {
  /** `env/seed/method`: the run cell's key. */
  key: string;
  env: string;
  seed: number;
  method: Method;
  /** The run's config; an RL method's `initFrom` is filled in once its seed's SFT run exists (withInit). */
  config: RunConfigInput;
  /** Steps the run trains: sftSteps for the SFT run, the RL budget for every method. */
  steps: number;
  evalLimit: number;
  evals: EvalPlan[];
  /** Reality-check its rehearsed training rollouts (methods that rehearse). */
  realityCheck: boolean;
}

export interface SeedPlan {
  env: string;
  seed: number;
  sft: RunPlan;
  /** Every other method, each from the SFT run's checkpoint. */
  methods: RunPlan[];
}

export const runKey = (env: string, seed: number, method: Method) => `${env}/${seed}/${method}`;
export const evalKey = (env: string, seed: number, v: Variant, split: Split) => `${env}/${seed}/${variantKey(v)}/${split}`;

export function testTimeVariants(suite: Pick<Suite, 'testTime'>): Variant[] {
  return suite.testTime.modes.flatMap((mode) =>
    suite.testTime.rehearsals.map((rehearsals) => ({ method: 'envace' as const, testTime: { mode, rehearsals } })),
  );
}

/**
 * The SFT checkpoint with the suite's first test-time setting (fewest rehearsals), held-out: the
 * same tasks as envace's test-time rows, so its rehearsal fidelity is the "before" of envace's
 * (fidelity rising during envace training, measured on identical tasks; the reality checks of
 * training rollouts see different tasks at the first and last step), and its success says whether
 * rehearsal at test time helps a policy that envace never trained.
 */
export function sftTestTimeVariant(suite: Pick<Suite, 'testTime' | 'methods'>): Variant | null {
  const [mode] = suite.testTime.modes;
  if (!suite.methods.includes('envace') || mode === undefined || !suite.testTime.rehearsals.length) return null;
  return { method: 'sft', testTime: { mode, rehearsals: Math.min(...suite.testTime.rehearsals) } };
}

/** The config fields that make a method what it is, on top of the shared ones. */
function methodConfig(method: Exclude<Method, 'sft'>, suite: Suite): Omit<RunConfigInput, 'env'> {
  switch (method) {
    case 'paw':
      return { algo: 'paw', steps: suite.rlSteps, paw: { worldLoss: 'cmae' } };
    case 'paw-ce':
      return { algo: 'paw', steps: suite.rlSteps, paw: { worldLoss: 'ce' } };
    case 'rwml': {
      const { rwmlSteps, policySteps } = rwmlSplit(suite);
      return { algo: 'rwml+grpo-real', steps: policySteps, rwml: { stageSteps: rwmlSteps } };
    }
    default:
      return { algo: method, steps: suite.rlSteps };
  }
}

export function planSeed(suite: Suite, plan: EnvPlan, seed: number): SeedPlan {
  const S = plan.sftSteps ?? suite.sftSteps;
  const evalLimit = plan.evalLimit ?? suite.evalLimit;
  const shared: RunConfigInput = {
    env: plan.env,
    worldSize: plan.worldSize,
    ...(plan.worldMode ? { worldMode: plan.worldMode } : {}),
    ...(plan.taskMix ? { taskMix: plan.taskMix } : {}),
    ...(plan.trainTasks ? { trainTasks: plan.trainTasks } : {}),
    model: { preset: plan.preset },
    seed,
    provider: 'cpu',
    rollout: plan.rollout,
    optim: plan.optim,
    // Nothing evaluates on the way: only the last checkpoint is evaluated or started from.
    evalEvery: 0,
  };
  const evals = (v: Variant, splits: Split[]): EvalPlan[] => splits.map((split) => ({ key: evalKey(plan.env, seed, v, split), variant: v, split }));
  const plain = (method: Method) =>
    evals({ method, testTime: null }, ['heldout', 'train']).map((e) =>
      e.split === 'heldout' && suite.robustness ? { ...e, robustness: suite.robustness } : e,
    );
  const sftRollout = plan.sftRows ? { ...plan.rollout, k: 1, tasksPerStep: plan.sftRows } : plan.rollout;
  const sft: RunPlan = {
    key: runKey(plan.env, seed, 'sft'),
    env: plan.env,
    seed,
    method: 'sft',
    // World-model SFT: the checkpoint has seen real observations, which the rehearsing methods imagine.
    config: {
      ...shared,
      rollout: sftRollout,
      algo: 'sft',
      steps: S,
      sft: {
        worldModelLoss: true,
        ...(plan.sftWorldModelLossFrom ? { worldModelLossFrom: plan.sftWorldModelLossFrom } : {}),
        ...(plan.sftErrorProbes ? { errorProbes: plan.sftErrorProbes } : {}),
      },
      checkpointEvery: S,
    },
    steps: S,
    evalLimit,
    evals: [...plain('sft'), ...[sftTestTimeVariant(suite)].flatMap((v) => (v ? evals(v, ['heldout']) : []))],
    realityCheck: false,
  };
  const methods = suite.methods
    .filter((m): m is Exclude<Method, 'sft'> => m !== 'sft')
    .map((method): RunPlan => ({
      key: runKey(plan.env, seed, method),
      env: plan.env,
      seed,
      method,
      config: {
        ...shared,
        ...methodConfig(method, suite),
        sft: { steps: 0 },
        checkpointEvery: suite.rlSteps,
        ...(REHEARSING.has(method) && suite.memoryAwareFraction ? { testTime: { memoryAwareFraction: suite.memoryAwareFraction } } : {}),
      },
      steps: suite.rlSteps,
      evalLimit,
      evals: [...plain(method), ...(method === 'envace' ? testTimeVariants(suite).flatMap((v) => evals(v, ['heldout'])) : [])],
      realityCheck: REHEARSING.has(method),
    }));
  return { env: plan.env, seed, sft, methods };
}

/** Every env × seed of a suite, in training order. */
export function planSuite(suite: Suite): SeedPlan[] {
  return suite.envs.flatMap((env) => suite.seeds.map((seed) => planSeed(suite, env, seed)));
}

/** The RL run's config, started from the SFT run's last checkpoint. */
export function withInit(plan: RunPlan, sftRunId: string, sftStep: number): RunConfigInput {
  return { ...plan.config, initFrom: { runId: sftRunId, step: sftStep } };
}

/**
 * Which runs an experiment trains and which table rows each run's checkpoints give. SFT only and
 * envace share one `sft+envace` run: its checkpoint at the last SFT step is the SFT-only model.
 */
import type { RunConfigInput } from '../../contract';
import { type EnvPlan, type Method, type RehearsalMode, type Suite, rwmlSplit } from './suite';

/** A table row: a method, and for envace optionally a test-time rehearsal setting. */
export interface Variant {
  method: Method;
  testTime: { mode: RehearsalMode; rehearsals: number } | null;
}

export function variantKey(v: Variant): string {
  return v.testTime ? `${v.method}+tt-${v.testTime.mode}-${v.testTime.rehearsals}` : v.method;
}

/** One evaluation to make of a run: the variant it measures, at the SFT checkpoint or the last step. */
export interface EvalPlan {
  variant: Variant;
  at: 'sft' | 'last';
}

export interface RunPlan {
  env: string;
  seed: number;
  /** The methods whose curves this run draws (sft has none of its own when it shares envace's run). */
  methods: Method[];
  config: RunConfigInput;
  /** Steps of the run when the engine gives every method its SFT warm start. */
  plannedSteps: number;
  /** Steps after the warm start (the budget compared across methods). */
  rlSteps: number;
  /** SFT warm-start steps on this env (the SFT-only checkpoint). */
  sftSteps: number;
  /** Held-out tasks per evaluation on this env. */
  evalLimit: number;
  evals: EvalPlan[];
  /** Reality-check rehearsed rollouts of the RL stage for the fidelity curve. */
  realityCheck: boolean;
}

function baseConfig(plan: EnvPlan, seed: number, sftSteps: number): RunConfigInput {
  return {
    env: plan.env,
    worldSize: plan.worldSize,
    model: { preset: plan.preset },
    seed,
    provider: 'cpu',
    rollout: plan.rollout,
    optim: plan.optim,
    // World-model SFT: every method starts from a policy that has seen real observations.
    sft: { steps: sftSteps, worldModelLoss: true },
    // The SFT checkpoint (SFT-only row) and the last step are the ones evaluated.
    checkpointEvery: sftSteps,
  };
}

export function testTimeVariants(suite: Pick<Suite, 'testTime'>): Variant[] {
  return suite.testTime.modes.flatMap((mode) =>
    suite.testTime.rehearsals.map((rehearsals) => ({ method: 'envace' as const, testTime: { mode, rehearsals } })),
  );
}

/** The runs for one env and seed, in training order. */
export function planRuns(suite: Suite, plan: EnvPlan, seed: number): RunPlan[] {
  const S = plan.sftSteps ?? suite.sftSteps;
  const N = suite.rlSteps;
  const base = baseConfig(plan, seed, S);
  const has = (m: Method) => suite.methods.includes(m);
  const runs: RunPlan[] = [];
  const common = { env: plan.env, seed, rlSteps: N, sftSteps: S, evalLimit: plan.evalLimit ?? suite.evalLimit };
  if (has('envace')) {
    const evals: EvalPlan[] = [
      { variant: { method: 'envace', testTime: null }, at: 'last' },
      ...testTimeVariants(suite).map((variant) => ({ variant, at: 'last' as const })),
    ];
    if (has('sft')) evals.unshift({ variant: { method: 'sft', testTime: null }, at: 'sft' });
    runs.push({
      ...common,
      methods: ['envace'],
      config: { ...base, algo: 'sft+envace', steps: N },
      plannedSteps: S + N,
      evals,
      realityCheck: suite.fidelityEvery > 0,
    });
  } else if (has('sft')) {
    runs.push({
      ...common,
      methods: ['sft'],
      config: { ...base, algo: 'sft', steps: S },
      plannedSteps: S,
      rlSteps: 0,
      evals: [{ variant: { method: 'sft', testTime: null }, at: 'last' }],
      realityCheck: false,
    });
  }
  const rl = (method: Method, config: RunConfigInput, plannedSteps: number): RunPlan => ({
    ...common,
    methods: [method],
    config,
    plannedSteps,
    evals: [{ variant: { method, testTime: null }, at: 'last' }],
    realityCheck: false,
  });
  if (has('grpo-real')) runs.push(rl('grpo-real', { ...base, algo: 'grpo-real', steps: N }, S + N));
  if (has('paw')) runs.push(rl('paw', { ...base, algo: 'paw', steps: N }, S + N));
  if (has('rwml')) {
    const { rwmlSteps, policySteps } = rwmlSplit(suite);
    runs.push(rl('rwml', { ...base, algo: 'rwml+grpo-real', steps: policySteps, rwml: { stageSteps: rwmlSteps } }, S + N));
  }
  return runs;
}

/**
 * Whether the engine gave this run its SFT warm start: a run of `plannedSteps` did; a run of only
 * `rlSteps` is an engine that honours `sft.steps` for `sft+envace` alone, and trained from scratch.
 */
export function warmStarted(plan: RunPlan, totalSteps: number): boolean {
  if (plan.config.algo === 'sft' || plan.config.algo === 'sft+envace') return true;
  return totalSteps === plan.plannedSteps;
}

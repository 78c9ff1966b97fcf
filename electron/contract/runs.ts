import { z } from 'zod';
import { Id, Name, Page, Seed, Step, Timestamp } from './common';

/** Every method the workbench can train with; chains run as one run with stages. */
export const Algo = z.enum([
  'sft',
  'grpo-real',
  'envace',
  'envace-no-rehearse-loss',
  'envace-shared-baseline',
  'paw',
  'rwml',
  'sft+envace',
  'rwml+grpo-real',
]);
export type Algo = z.infer<typeof Algo>;

export const RunStatus = z.enum(['created', 'queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted']);
export type RunStatus = z.infer<typeof RunStatus>;

export const ModelRef = z.union([
  z.strictObject({ preset: z.enum(['nano', 'tiny', 'small']) }),
  z.strictObject({ imported: Name }),
]);
export type ModelRef = z.infer<typeof ModelRef>;

/** One stage's optimiser settings; a rate, warm-up, floor or shape left out comes from `optim`. */
const stageOptim = (resetMoments: boolean) =>
  z.strictObject({
    lr: z.number().positive().max(1).optional(),
    warmupSteps: z.number().int().min(0).optional(),
    minLrRatio: z.number().min(0).max(1).optional(),
    schedule: z.enum(['cosine', 'constant']).optional(),
    /** Zero the AdamW moments when this stage starts (a run's first stage has none to reset, unless it starts from another run's checkpoint: initFrom). */
    resetMoments: z.boolean().default(resetMoments),
  });
export const StageOptim = stageOptim(true);
export type StageOptim = z.infer<typeof StageOptim>;

/**
 * A run's configuration. Every knob has its default here, so the stored config is the
 * resolved one and the UI can show each default (algorithms.md).
 */
export const RunConfig = z.strictObject({
  name: Name.optional(),
  env: Id,
  /** World size for the from-scratch generators (users/orders/files/rooms in play). */
  worldSize: z.number().int().min(1).max(10_000).default(8),
  /** fixed: tasks over one world (held-out = unseen users/pairs); procedural: fresh entities per task (held-out = never-seen names/ids). */
  worldMode: z.enum(['fixed', 'procedural']).default('fixed'),
  /** Curriculum: which task families train/held-out draw from — one-call look-ups, + chains, or all (ood keeps its own). */
  taskMix: z.enum(['lookups', 'chains', 'all']).default('all'),
  /** retail: fixed: one phrasing and field order; varied: phrasings, preambles, system notes, field order and distractor fields drawn per task. */
  layout: z.enum(['fixed', 'varied']).default('fixed'),
  /**
   * retail: how many training tasks the generator draws (its default: 200). In a procedural world every
   * task brings new entities, so more tasks is more to generalise from, where 200 are memorised.
   */
  trainTasks: z.number().int().min(1).max(20_000).optional(),
  /**
   * retail: how many held-out tasks the generator draws (its default: 50). A procedural world draws
   * each from fresh entities, so 200 or more give an evaluation whose ±2 sd is under 7 points; the
   * first 50 stay the same tasks whatever the count.
   */
  heldoutTasks: z.number().int().min(1).max(20_000).optional(),
  algo: Algo.default('envace'),
  model: ModelRef.default({ preset: 'tiny' }),
  /**
   * A preset's new tokenizer: merged (a space or quote before a word joins its first piece) or
   * separate (word starts their own token: a name is the same pieces wherever it appears, so it can
   * be copied; English text takes about twice the tokens). Imported models keep their own.
   */
  tokenizerWordStarts: z.enum(['merged', 'separate']).default('merged'),
  /**
   * A preset's new tokenizer: digits one a piece (single), or digit runs cut into pairs, all 100 in
   * the vocabulary (pairs: an id is half the pieces from 100 symbols, so it can be copied by
   * content — a piece rarely recurs inside one id). Imported models keep their own.
   */
  tokenizerDigits: z.enum(['single', 'pairs']).default('single'),
  steps: z.number().int().min(1).max(1_000_000).default(50),
  /**
   * Imported models: the context the run uses, at most the model's own (a train step's memory grows
   * with the square of the sequence). Absent: the model's own. Presets keep their fixed context.
   */
  contextTokens: z.number().int().min(64).max(1 << 20).optional(),
  seed: Seed.default(0),
  provider: z.enum(['auto', 'cpu', 'cuda', 'webgpu']).default('auto'),
  /**
   * ORT intra-op threads of every session of the run (0: ORT's default, one per core). With one thread
   * a run is bit-reproducible: several threads split a reduction differently from run to run, and
   * the rounding differences grow through training (five seed-0 runs of one tiny SFT recipe ended at
   * 10–28 % held-out with two threads, identical with one).
   */
  threads: z.number().int().min(0).max(256).default(0),
  rollout: z
    .strictObject({
      /** K rollouts per task (GRPO group size). */
      k: z.number().int().min(1).max(64).default(4),
      tasksPerStep: z.number().int().min(1).max(256).default(4),
      maxTurns: z.number().int().min(1).max(64).default(8),
      maxTokensPerTurn: z.number().int().min(1).max(4096).default(96),
      maxObservationTokens: z.number().int().min(1).max(8192).default(256),
      temperature: z.number().min(0).max(5).default(1),
      topP: z.number().gt(0).max(1).default(1),
      /** Dynamic sampling (DAPO): a task group whose rewards are all equal (no signal) is replaced by a fresh task's K rollouts. */
      dynamicSampling: z.boolean().default(false),
      /** Dynamic sampling: at most this many redraws per group and step; a group still without signal then trains as it is. */
      maxRedraws: z.number().int().min(1).max(16).default(3),
      /** Probability a step is real in `mixed` mode. */
      pReal: z.number().min(0).max(1).default(0),
      rehearsePrompt: z.enum(['inline', 'simulator']).default('inline'),
      toolSchemas: z.enum(['full', 'compact', 'none']).default('compact'),
      /** Calls one act may make and still earn checklist credit (never below the task's call items; envs/checklist.ts). */
      callBudget: z.number().int().min(1).max(16).default(4),
    })
    .prefault({}),
  optim: z
    .strictObject({
      lr: z.number().positive().max(1).default(3e-4),
      warmupSteps: z.number().int().min(0).default(5),
      minLrRatio: z.number().min(0).max(1).default(0.1),
      weightDecay: z.number().min(0).max(1).default(0.01),
      gradClip: z.number().positive().default(1),
      microBatchTokens: z.number().int().min(16).max(1 << 20).default(2048),
      ppoEpochs: z.number().int().min(1).max(16).default(1),
      /** After warm-up: cosine decay to minLrRatio·lr, or constant. */
      schedule: z.enum(['cosine', 'constant']).default('cosine'),
      /**
       * Each stage (SFT warm start, RWML's world-model stage, the RL stage) runs its own schedule over its
       * own steps — warm-up included — from these values, overridden per stage here; the world-model and RL
       * stages reset the AdamW moments by default (a new objective should not inherit the last one's).
       */
      stages: z
        .strictObject({ sft: stageOptim(false).prefault({}), world: stageOptim(true).prefault({}), rl: stageOptim(true).prefault({}) })
        .prefault({}),
    })
    .prefault({}),
  loss: z
    .strictObject({
      clipLow: z.number().min(0).max(1).default(0.2),
      clipHigh: z.number().min(0).max(10).default(0.2),
      dualClip: z.number().min(1).default(3),
      aggregation: z.enum(['token-mean', 'seq-mean-token-mean', 'constant']).default('token-mean'),
      stdNormalize: z.boolean().default(false),
      baseline: z.enum(['pooled-per-output', 'per-rollout']).default('pooled-per-output'),
      klBeta: z.number().min(0).default(0),
      klEstimator: z.enum(['k1', 'k2', 'k3']).default('k3'),
    })
    .prefault({}),
  paw: z
    .strictObject({
      alpha: z.number().gt(0).max(1).default(0.75),
      rho: z.number().gt(0).max(1).default(0.2),
      worldLoss: z.enum(['cmae', 'ce']).default('cmae'),
    })
    .prefault({}),
  rwml: z
    .strictObject({
      /** json-soft: JSON path→leaf F1 with credit for near values (char ROUGE-L for text); rewards near misses. */
      similarity: z.enum(['json-soft', 'json-f1', 'rouge-l', 'char-ngram-cos', 'embedding']).default('json-soft'),
      reward: z.enum(['binary', 'rounded']).default('binary'),
      threshold: z.number().min(0).max(1).default(0.8),
      samplesPerTransition: z.number().int().min(1).max(64).default(8),
      easyThreshold: z.number().min(0).max(1).default(0.9),
      keepEasyProbability: z.number().min(0).max(1).default(0.1),
      stageSteps: z.number().int().min(0).default(0),
    })
    .prefault({}),
  sft: z
    .strictObject({
      /** SFT warm-start steps before any RL method (required by sft+envace); for algo 'sft', `steps` counts. */
      steps: z.number().int().min(0).default(0),
      demonstrations: z.enum(['expert', 'file']).default('expert'),
      demonstrationsFile: z.string().max(4096).optional(),
      worldModelLoss: z.boolean().default(true),
      /**
       * The SFT step from which the observation loss (worldModelLoss) applies; before it, act tokens
       * only. A model trained from scratch learns to copy ids from its context first: with the
       * observations' random ids in the loss from step 1, two-layer tiny copied nothing by step 500,
       * and the observation loss added afterwards kept its copying (README "Learning to generalise").
       */
      worldModelLossFrom: z.number().int().min(1).default(1),
      /**
       * Share of expert demonstrations that also show one wrong call (a digit of an id changed) and the
       * real environment's error: the world model learns that calls can fail (algorithms/error-probes.ts).
       */
      errorProbes: z.number().min(0).max(1).default(0),
      /**
       * Memory-aware SFT: share of each batch's demonstrations laid out behind a rehearsal memory of
       * their task, rehearsed by the policy of that step (no env calls; algorithms/sft-memory.ts), so
       * a memory block at test time is not the first the policy meets.
       */
      memoryFraction: z.number().min(0).max(1).default(0),
      /** The SFT step from which memory rows appear (the policy should act before it rehearses). */
      memoryFrom: z.number().int().min(1).default(1),
      /**
       * Layout curriculum (with `layout: 'varied'`): the first N SFT steps train on the same tasks in
       * the fixed template. From scratch, two-layer tiny copied nothing on varied text in 500 steps,
       * while from a fixed-template checkpoint varied text turned its positional copy into a copy by
       * content (README "Learning to generalise"); this is that curriculum inside one run. 0: off.
       */
      fixedLayoutSteps: z.number().int().min(0).default(0),
      /** After `fixedLayoutSteps`, the steps over which the share of varied rows rises linearly from 0 to 1 (0: all at once). */
      layoutRampSteps: z.number().int().min(0).default(0),
    })
    .prefault({}),
  /** LoRA: rank 0 trains every weight; rank > 0 freezes a pretrained (imported) model and trains rank-r adapters. */
  lora: z
    .strictObject({
      rank: z.number().int().min(0).max(256).default(0),
      alpha: z.number().positive().max(4096).default(16),
      targets: z.enum(['attention', 'attention+mlp']).default('attention+mlp'),
    })
    .prefault({}),
  testTime: z
    .strictObject({
      memoryAwareFraction: z.number().min(0).max(1).default(0),
      /**
       * Context reserved for a rehearsal memory: a memory gets at least this many tokens even where that
       * leaves less than a whole turn (a memory cut to nothing is what the policy was never trained on).
       */
      memoryTokens: z.number().int().min(0).max(8192).default(64),
    })
    .prefault({}),
  checkpointEvery: z.number().int().min(1).default(10),
  /** Checkpoints kept: the newest N; older ones leave disk and the run's list as new ones are written (training.ts). */
  checkpointKeepLast: z.number().int().min(1).max(1000).default(3),
  /** Also keep the checkpoint with the best held-out success (`eval/success`, so only when evalEvery > 0). */
  checkpointKeepBest: z.boolean().default(true),
  /** Held-out evaluation before the first step (step 0), every evalEvery steps and at the last; 0: none while training. */
  evalEvery: z.number().int().min(0).default(0),
  /**
   * Start from another run's checkpoint (its weights and tokenizer; fresh optimiser state, step 1 of
   * this run's own stages), e.g. every method of a seed from one SFT checkpoint. Step: its latest if absent.
   */
  initFrom: z.strictObject({ runId: Id, step: z.number().int().min(1).optional() }).optional(),
});
export type RunConfig = z.infer<typeof RunConfig>;
export type RunConfigInput = z.input<typeof RunConfig>;

export const Run = z.strictObject({
  id: Id,
  name: z.string(),
  env: z.string(),
  algo: Algo,
  model: z.string(),
  status: RunStatus,
  config: RunConfig,
  currentStep: Step,
  totalSteps: Step,
  etaMs: z.number().nullable(),
  bestHeldoutSuccess: z.number().nullable(),
  parentRunId: Id.nullable(),
  parentStep: Step.nullable(),
  error: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
  checkpoints: z.array(z.strictObject({ step: Step, createdAt: Timestamp })),
});
export type Run = z.infer<typeof Run>;

export const RunsListInput = z.strictObject({
  status: RunStatus.optional(),
  search: z.string().max(200).optional(),
  ...Page.shape,
});
export const RunsListOutput = z.strictObject({ items: z.array(Run), total: z.number().int() });
export const RunIdInput = z.strictObject({ id: Id });
export const RunsCreateInput = z.strictObject({
  config: RunConfig,
  /** Queue the training job right away (otherwise the run is stored as "created"). */
  start: z.boolean().default(false),
});
export const RunsForkInput = z.strictObject({ id: Id, fromStep: Step, name: Name.optional() });

/** One stage of a run and the global steps [first, last] (1-based, inclusive) it owns. */
export interface PlannedStage {
  algo: Exclude<Algo, 'sft+envace' | 'rwml+grpo-real'>;
  first: number;
  last: number;
}

/** Why a config has no stages to train (a chain missing its first stage's steps), or null. The engine throws it; pre-flight shows it. */
export function stagePlanProblem(c: RunConfig): string | null {
  if (c.algo === 'sft+envace' && c.sft.steps < 1) return 'sft+envace needs sft.steps ≥ 1';
  if (c.algo === 'rwml+grpo-real' && c.rwml.stageSteps < 1) return 'rwml+grpo-real needs rwml.stageSteps ≥ 1';
  return null;
}

/**
 * The stages a config trains, in order: an RL method's SFT warm start (`sft.steps` > 0), then a chain's
 * parts. Here so the engine (planStages, which adds its refusals) and the Dashboard's "SFT 230/400 →
 * envace 3/8" header lay a run out the same way; a stage with no steps is left out.
 */
export function stagePlan(c: RunConfig): PlannedStage[] {
  const parts: Array<[PlannedStage['algo'], number]> = [];
  if (c.algo !== 'sft' && c.sft.steps > 0) parts.push(['sft', c.sft.steps]);
  if (c.algo === 'sft+envace') parts.push(['envace', c.steps]);
  else if (c.algo === 'rwml+grpo-real') parts.push(['rwml', c.rwml.stageSteps], ['grpo-real', c.steps]);
  else parts.push([c.algo, c.steps]);
  let next = 1;
  return parts
    .filter(([, n]) => n > 0)
    .map(([algo, n]) => {
      const stage = { algo, first: next, last: next + n - 1 };
      next += n;
      return stage;
    });
}

/** A line of a run's log, as `run.log` pushed it and `runs.log` reads it back. */
export const RunLogLine = z.strictObject({ runId: Id, level: z.enum(['info', 'warn', 'error']), message: z.string(), time: Timestamp });
export type RunLogLine = z.infer<typeof RunLogLine>;
/** The newest `limit` stored lines (the engine keeps the last 2,000 per run), oldest first. */
export const RunsLogInput = z.strictObject({ id: Id, limit: z.number().int().min(1).max(2000).optional() });
export const RunsLogOutput = z.strictObject({ lines: z.array(RunLogLine) });

/**
 * Training steps of the whole run: an RL method's SFT warm start (`sft.steps`) and a chain's first
 * stage come before its `steps` (stagePlan above lays them out).
 */
export function plannedSteps(config: RunConfig): number {
  const warmStart = config.algo === 'sft' ? 0 : config.sft.steps;
  const worldModel = config.algo === 'rwml+grpo-real' ? config.rwml.stageSteps : 0;
  return warmStart + worldModel + config.steps;
}

/** `warning`: passes, but the run will likely learn little as configured (a heuristic; shown as a caution). */
export const PreflightCheck = z.strictObject({ name: z.string(), ok: z.boolean(), detail: z.string(), warning: z.boolean().optional() });
/** Time and disk a run will take, estimated before it starts; each `basis` says how (preflight.ts). */
export const PreflightEstimate = z.strictObject({
  seconds: z.number().nullable(),
  secondsBasis: z.string(),
  /** One checkpoint folder (weights + AdamW moments + tokenizer), and how many the retention knobs keep at most. */
  checkpointBytes: z.number().nullable(),
  checkpointsKept: z.number().int(),
  diskBytes: z.number().nullable(),
  diskBasis: z.string(),
});
/**
 * The recommended recipe for an environment and model (engine/runs/recipes.ts): the knobs known to train.
 * With `algo`: that method's recipe — sft the recipe's SFT stage alone, an RL method the RL recipe it
 * trains from a checkpoint with (engine/runs/rl-recipes.ts); sft+envace, like none, the whole recipe.
 */
/**
 * recommended: the knobs known to train best for the env × model; quick: where an env × model has one,
 * a shorter recipe that shows learning in a few minutes (the Quickstart's), else the recommended one.
 */
export const RecipeVariant = z.enum(['recommended', 'quick']);
export type RecipeVariant = z.infer<typeof RecipeVariant>;
export const RunsRecipeInput = z.strictObject({ env: Id, model: ModelRef.optional(), algo: Algo.optional(), variant: RecipeVariant.optional() });
export const RunsRecipeOutput = z.strictObject({
  id: z.string(),
  config: RunConfig,
  /** Figures where measured (null: not measured yet), and where they were measured. */
  expected: z.strictObject({ minutes: z.number().nullable(), heldoutSuccess: z.number().nullable(), diskMB: z.number().nullable(), measured: z.string().nullable() }),
  notes: z.string(),
});

export const RunsPreflightInput = z.strictObject({ config: RunConfig });
/** What the engine can tell about a run before it starts (workbench.md "New run"). */
export const RunsPreflightOutput = z.strictObject({
  ok: z.boolean(),
  checks: z.array(PreflightCheck),
  params: z.number().int().nullable(),
  /** Weights, gradients, AdamW moments and one micro-batch's activations, in bytes (an estimate). */
  memoryEstimateBytes: z.number().nullable(),
  taskCounts: z.strictObject({ train: z.number().int(), heldout: z.number().int(), ood: z.number().int() }).nullable(),
  plannedSteps: z.number().int(),
  /** Absent from engines older than the estimate. */
  estimate: PreflightEstimate.optional(),
});

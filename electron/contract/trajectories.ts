import { z } from 'zod';
import { Id, Page, Step, Text, Timestamp } from './common';

export const RolloutMode = z.enum(['real', 'rehearse', 'mixed', 'test-time']);
export type RolloutMode = z.infer<typeof RolloutMode>;
export const TurnRole = z.enum(['prompt', 'act', 'rehearse', 'env', 'memory']);
export type TurnRole = z.infer<typeof TurnRole>;

export const RolloutId = z.number().int().positive();

/** What a test-time rollout was: a private rehearsal or a committed real run (null for other modes and older rows). */
export const RolloutPurpose = z.enum(['rehearsal', 'commit']);
export type RolloutPurpose = z.infer<typeof RolloutPurpose>;

export const RolloutSummary = z.strictObject({
  id: RolloutId,
  runId: Id.nullable(),
  step: Step.nullable(),
  taskId: z.string(),
  env: z.string(),
  mode: RolloutMode,
  reward: z.number().nullable(),
  success: z.boolean().nullable(),
  envCalls: z.number().int(),
  envWallMs: z.number(),
  tokens: z.number().int(),
  turnCount: z.number().int(),
  memoryId: z.number().int().nullable(),
  purpose: RolloutPurpose.nullable(),
  createdAt: Timestamp,
});
export type RolloutSummary = z.infer<typeof RolloutSummary>;

export const Fidelity = z.strictObject({
  exact: z.boolean(),
  /** Field F1, where the real observation is JSON; null where it is not. */
  jsonF1: z.number().nullable(),
  /** Token F1 (bags of words), where the real observation is not JSON; null where it is (absent in checks stored before it existed). */
  tokenF1: z.number().nullable().optional(),
  similarity: z.number(),
});
export type Fidelity = z.infer<typeof Fidelity>;

export const Turn = z.strictObject({
  index: z.number().int(),
  role: TurnRole,
  text: z.string(),
  tokenIds: z.array(z.number().int()).nullable(),
  /** Each token id's text, decoded alone with the run's tokenizer (trajectories.get; absent where no tokenizer is at hand). */
  tokenTexts: z.array(z.string()).nullable().optional(),
  logprobs: z.array(z.number()).nullable(),
  advantages: z.array(z.number()).nullable(),
  /** For a rehearsed observation after a reality check: what the real environment said. */
  realText: z.string().nullable(),
  fidelity: Fidelity.nullable(),
});
export type Turn = z.infer<typeof Turn>;

export const ChecklistBreakdown = z.strictObject({
  /** Over the checkable items only; 0 when none is checkable (then `unchecked`). */
  score: z.number(),
  formatError: z.boolean(),
  /** No checkable item carries weight (every requirement is an NL assertion): the score says nothing. */
  unchecked: z.literal(true).optional(),
  items: z.array(
    z.strictObject({
      index: z.number().int(),
      kind: z.string(),
      description: z.string(),
      weight: z.number(),
      passed: z.boolean(),
      detail: z.string().optional(),
      /** An NL assertion: needs an LLM judge, which we do not run; neither passed nor in the score. */
      unchecked: z.literal(true).optional(),
    }),
  ),
});

export const Rollout = z.strictObject({
  ...RolloutSummary.shape,
  checklist: ChecklistBreakdown.nullable(),
  turns: z.array(Turn),
});
export type Rollout = z.infer<typeof Rollout>;

export const TrajectoriesListInput = z.strictObject({
  runId: Id.optional(),
  step: Step.optional(),
  taskId: z.string().max(200).optional(),
  mode: RolloutMode.optional(),
  minReward: z.number().optional(),
  maxReward: z.number().optional(),
  ...Page.shape,
});
export const TrajectoriesListOutput = z.strictObject({ items: z.array(RolloutSummary), total: z.number().int() });
export const TrajectoryGetInput = z.strictObject({ id: RolloutId });
export const RealityCheckInput = z.strictObject({ id: RolloutId });

export const TextField = Text;

export const RealityCheckSummary = z.strictObject({
  /** Rehearsed observations compared with the real environment's. */
  compared: z.number().int(),
  exactRate: z.number(),
  meanSimilarity: z.number(),
  /** Mean field F1 over the `jsonCompared` observations the world answered in JSON; null when none were. */
  meanJsonF1: z.number().nullable(),
  jsonCompared: z.number().int(),
  /** Mean token F1 over the `textCompared` others (errors, prose); null when none were. */
  meanTokenF1: z.number().nullable(),
  textCompared: z.number().int(),
  envCalls: z.number().int(),
});
export type RealityCheckSummary = z.infer<typeof RealityCheckSummary>;

/** A reality check: the rollout with each rehearsed observation's real counterpart, and the figures. */
export const RealityCheckOutput = z.strictObject({
  rollout: Rollout,
  summary: RealityCheckSummary,
});

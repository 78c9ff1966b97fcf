import { z } from 'zod';
import { Id, Name, Seed, Step } from './common';
import { EnvSplit } from './envs';
import { CommitMode, RehearsalMode } from './memories';

export const EvalsRunInput = z.strictObject({
  runId: Id,
  /** Checkpoint step (default the last). */
  step: Step.optional(),
  split: EnvSplit.default('heldout'),
  limit: z.number().int().min(1).max(10_000).optional(),
  /** Test-time private rehearsals before each committed run; 0 = none. */
  rehearsals: z.number().int().min(0).max(16).default(0),
  mode: RehearsalMode.default('parallel'),
  /** safe (the default): a policy that is not robust to prompt changes cannot be hurt by rehearsal. */
  commit: CommitMode.default('safe'),
  /**
   * rehearse: each task's memory comes from fresh private rehearsals (when rehearsals > 0). stored: a
   * task with a stored memory of this run (the Memory view's, hand edits included) is committed with
   * its newest version, no rehearsal; the other tasks go on as `rehearse` would.
   */
  memories: z.enum(['rehearse', 'stored']).default('rehearse'),
  seed: Seed.default(0),
  /**
   * Robustness evaluation (issue 21): the same tasks again with n neutral filler tokens after the
   * system text, after the instruction and in a memory block, and with a rehearsal memory. `true`:
   * n ∈ {1, 4, 16, 64}; a list: those sizes. Absent or false: none.
   */
  robustness: z.union([z.boolean(), z.array(z.number().int().min(1).max(512)).min(1).max(8)]).optional(),
});

/** One perturbation of a robustness evaluation; `delta` is against the unperturbed success (paired tasks and seeds). */
export const RobustnessCell = z.strictObject({
  perturbation: z.enum(['none', 'filler', 'memory']),
  /** Where the tokens go: end of the system text, after the instruction, a `<|memory|>` block; null unperturbed. */
  where: z.enum(['system', 'instruction', 'memory']).nullable(),
  /** Filler tokens inserted; for the rehearsal memory, its block's mean length. */
  tokens: z.number(),
  success: z.number(),
  delta: z.number(),
  envCallsPerTask: z.number(),
  invalidActionRate: z.number(),
});
export type RobustnessCell = z.infer<typeof RobustnessCell>;

export const RobustnessTable = z.strictObject({
  cells: z.array(RobustnessCell),
  /** The largest drop below the unperturbed success (0 when none dropped). */
  worstDrop: z.number(),
  tolerance: z.number(),
  /** Every perturbation within `tolerance` below the unperturbed success (the bar). */
  passed: z.boolean(),
});
export type RobustnessTable = z.infer<typeof RobustnessTable>;

/** Figures of one evaluation, always in the real environment (algorithms.md "Evaluation"). */
export const EvalResult = z.strictObject({
  runId: Id,
  step: Step,
  env: z.string(),
  split: EnvSplit,
  rehearsals: z.number().int(),
  mode: RehearsalMode,
  tasks: z.number().int(),
  success: z.number(),
  meanScore: z.number(),
  invalidActionRate: z.number(),
  envCallsPerTask: z.number(),
  tokensPerTask: z.number(),
  wallMs: z.number(),
  /** World-model fidelity of rehearsed observations, when rehearsals were made. */
  fidelity: z.number().nullable(),
  perTask: z.array(
    z.strictObject({
      taskId: z.string(),
      success: z.boolean(),
      score: z.number(),
      envCalls: z.number().int(),
      rolloutId: z.number().int().nullable(),
      /** The stored memory the task was committed with (memories: stored); absent otherwise. */
      memoryId: z.number().int().positive().optional(),
      /** What failed in the environment itself (its tool server did not start, crashed or hung): the task failed for that, not by the policy. */
      envFailure: z.string().optional(),
    }),
  ),
  commit: CommitMode,
  /** Real env calls whose observation is an error, over all real calls (older results: absent). */
  callErrorRate: z.number().optional(),
  /** Where the memories came from (older results: rehearse). */
  memories: z.enum(['rehearse', 'stored']).default('rehearse'),
  /** With `robustness` asked for: the table of perturbations; absent otherwise. */
  robustness: RobustnessTable.optional(),
});
export type EvalResult = z.infer<typeof EvalResult>;

export const StoredEvalResult = z.strictObject({ ...EvalResult.shape, id: z.number().int(), createdAt: z.number().int() });
export const EvalsListInput = z.strictObject({ runId: Id.optional() });
export const EvalsListOutput = z.strictObject({ items: z.array(StoredEvalResult) });

/**
 * An imported model as it was imported, with no run: its held-out figures before any training (the
 * "base" row of a pretrained model). The rollout settings are the env × model recipe's, so the base
 * model sees the prompt a run from that recipe would train on.
 */
export const EvalsModelInput = z.strictObject({
  model: Name,
  env: Id,
  split: EnvSplit.default('heldout'),
  limit: z.number().int().min(1).max(10_000).optional(),
  seed: Seed.default(0),
});

export const ModelEvalResult = z.strictObject({
  model: z.string(),
  /** The recipe whose rollout settings (tool schemas, turns, token limits) the evaluation used. */
  recipe: z.string(),
  ...EvalResult.pick({ env: true, split: true, tasks: true, success: true, meanScore: true, invalidActionRate: true, envCallsPerTask: true, tokensPerTask: true, wallMs: true, callErrorRate: true }).shape,
  perTask: z.array(z.strictObject({ taskId: z.string(), success: z.boolean(), score: z.number(), envCalls: z.number().int(), envFailure: z.string().optional() })),
});
export type ModelEvalResult = z.infer<typeof ModelEvalResult>;

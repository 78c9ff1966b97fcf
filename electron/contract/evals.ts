import { z } from 'zod';
import { Id, Seed, Step } from './common';
import { EnvSplit } from './envs';
import { RehearsalMode } from './memories';

export const EvalsRunInput = z.strictObject({
  runId: Id,
  /** Checkpoint step (default the last). */
  step: Step.optional(),
  split: EnvSplit.default('heldout'),
  limit: z.number().int().min(1).max(10_000).optional(),
  /** Test-time private rehearsals before each committed run; 0 = none. */
  rehearsals: z.number().int().min(0).max(16).default(0),
  mode: RehearsalMode.default('parallel'),
  commit: z.enum(['prompt', 'plan']).default('prompt'),
  /**
   * rehearse: each task's memory comes from fresh private rehearsals (when rehearsals > 0). stored: a
   * task with a stored memory of this run (the Memory view's, hand edits included) is committed with
   * its newest version, no rehearsal; the other tasks go on as `rehearse` would.
   */
  memories: z.enum(['rehearse', 'stored']).default('rehearse'),
  seed: Seed.default(0),
});

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
    }),
  ),
  commit: z.enum(['prompt', 'plan']),
  /** Where the memories came from (older results: rehearse). */
  memories: z.enum(['rehearse', 'stored']).default('rehearse'),
});
export type EvalResult = z.infer<typeof EvalResult>;

export const StoredEvalResult = z.strictObject({ ...EvalResult.shape, id: z.number().int(), createdAt: z.number().int() });
export const EvalsListInput = z.strictObject({ runId: Id.optional() });
export const EvalsListOutput = z.strictObject({ items: z.array(StoredEvalResult) });

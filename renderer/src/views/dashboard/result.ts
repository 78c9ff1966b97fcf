import type { Points } from '../../charts/series';

/** One held-out evaluation: the step it ran after (0: before training) and its success rate. */
export interface Evaluated {
  step: number;
  success: number;
}

/** What a run's held-out evaluations add up to: where it started, where it ended, and the checkpoint to use. */
export interface HeldoutResult {
  /** The evaluation before the first step (step 0), when the run made one. */
  before: Evaluated | null;
  /** The latest evaluation after training began. */
  after: Evaluated;
  /** The highest success among evaluated steps that still have a checkpoint (the earliest of equals), if any. */
  best: Evaluated | null;
  /** How many evaluations after step 0. */
  evaluations: number;
}

/**
 * The before → after of a run from its `eval/success` series and the steps it keeps checkpoints of.
 * Null until there is an evaluation after training began (a lone step-0 point is not a result yet).
 * The best is looked for only among checkpointed steps, so it is one a user can evaluate or export.
 */
export function heldoutResult(success: Points | undefined, checkpointSteps: readonly number[]): HeldoutResult | null {
  if (!success) return null;
  const points = success.steps.map((step, i) => ({ step, success: success.values[i]! })).filter((p) => Number.isFinite(p.success));
  const trained = points.filter((p) => p.step > 0);
  const after = trained.at(-1);
  if (!after) return null;
  const kept = new Set(checkpointSteps);
  const best = trained.filter((p) => kept.has(p.step)).reduce<Evaluated | null>((b, p) => (b === null || p.success > b.success ? p : b), null);
  return { before: points.find((p) => p.step === 0) ?? null, after, best, evaluations: trained.length };
}

/** A success rate as the card shows it: whole percent. */
export const percent = (rate: number) => `${Math.round(rate * 100)} %`;

/**
 * Per-stage optimiser schedules (issue "RL runs on the learning-rate floor"): one cosine over a whole
 * SFT → RL run left the RL steps at the floor, 0.1× the SFT rate, with SFT's Adam moments. Each stage
 * now runs its own schedule over its own steps, warm-up included, from `optim` overridden by
 * `optim.stages.<sft|world|rl>`; a later stage starts from zeroed moments unless told otherwise.
 */
import type { RunConfig } from '../../contract';
import { lrAt, type Schedule } from '../../../native-models/training/schedule';

/** One stage of a run: its method and the global steps it owns. */
export interface Stage {
  algo: 'sft' | 'grpo-real' | 'envace' | 'envace-no-rehearse-loss' | 'envace-shared-baseline' | 'paw' | 'rwml';
  /** Global steps [first, last] (1-based, inclusive) this stage owns. */
  first: number;
  last: number;
}

export type StageKey = 'sft' | 'world' | 'rl';

/** Which `optim.stages` entry a stage reads: the SFT warm start, RWML's world-model stage, or the RL method. */
export function stageKey(algo: Stage['algo']): StageKey {
  return algo === 'sft' ? 'sft' : algo === 'rwml' ? 'world' : 'rl';
}

/** The schedule of one stage, over its own steps. */
export function stageSchedule(c: RunConfig, stage: Stage): Schedule {
  const own = c.optim.stages[stageKey(stage.algo)];
  return {
    lr: own.lr ?? c.optim.lr,
    warmupSteps: own.warmupSteps ?? c.optim.warmupSteps,
    minLrRatio: own.minLrRatio ?? c.optim.minLrRatio,
    kind: own.schedule ?? c.optim.schedule,
    totalSteps: stage.last - stage.first + 1,
  };
}

/** The learning rate of global run step `step` (1-based), which `stage` owns. */
export function stageLearningRate(c: RunConfig, stage: Stage, step: number): number {
  return lrAt(step - stage.first, stageSchedule(c, stage));
}

/** Whether `stage` starts from zeroed AdamW moments (by default the world-model and RL stages; never a run's first). */
export function stageResetsMoments(c: RunConfig, stage: Stage, isFirstStage: boolean): boolean {
  return !isFirstStage && c.optim.stages[stageKey(stage.algo)].resetMoments;
}

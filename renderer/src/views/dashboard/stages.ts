import { stagePlan, type PlannedStage, type RunConfig } from '../../../../electron/contract';
import type { Points } from '../../charts/series';

/** How a stage is named in headers and the alignment picker. */
export function stageLabel(stage: Pick<PlannedStage, 'algo'>): string {
  return stage.algo === 'sft' ? 'SFT' : stage.algo === 'rwml' ? 'RWML world model' : stage.algo;
}

/**
 * "SFT 230/400 → envace 3/8": each stage of the run with the steps done in it, from the same layout
 * the engine trains (the contract's stagePlan), so a chain's global step reads as progress per stage.
 */
export function stageProgress(config: RunConfig, currentStep: number): string {
  return stagePlan(config)
    .map((s) => {
      const total = s.last - s.first + 1;
      const done = Math.min(total, Math.max(0, currentStep - s.first + 1));
      return `${stageLabel(s)} ${done}/${total}`;
    })
    .join(' → ');
}

/**
 * What x means when runs are overlaid. Absolute steps make an SFT-warm-started run's RL steps
 * (401–408) sit far right of a plain run's (1–5); 'rl' and 'sft' put each run's step within that
 * stage on x instead, so the same stage starts at 1 for every run.
 */
export type Alignment = 'rl' | 'sft' | 'absolute';

export const alignmentLabels: Record<Alignment, string> = {
  rl: 'step within the last (RL) stage',
  sft: 'step within the SFT warm start',
  absolute: 'absolute step',
};

/** The stage an alignment picks for a run: its last stage (the method compared), its SFT stage, or none for absolute. */
export function alignedStage(stages: readonly PlannedStage[], alignment: Alignment): PlannedStage | undefined {
  if (alignment === 'rl') return stages.at(-1);
  if (alignment === 'sft') return stages.find((s) => s.algo === 'sft');
  return undefined;
}

/**
 * A run's series on the chosen x: absolute steps unchanged; otherwise only the points inside the
 * picked stage, renumbered from 1. A run without that stage (no SFT warm start) has no points.
 */
export function alignToStage(points: Points, config: RunConfig | undefined, alignment: Alignment): Points {
  if (alignment === 'absolute' || !config) return points;
  const stage = alignedStage(stagePlan(config), alignment);
  if (!stage) return { steps: [], values: [] };
  const steps: number[] = [];
  const values: number[] = [];
  points.steps.forEach((step, i) => {
    if (step < stage.first || step > stage.last) return;
    steps.push(step - stage.first + 1);
    values.push(points.values[i]!);
  });
  return { steps, values };
}

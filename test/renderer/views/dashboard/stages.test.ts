import { describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../../electron/contract';
import { alignToStage, stageProgress } from '../../../../renderer/src/views/dashboard/stages';

const cfg = (input: Omit<RunConfigInput, 'env'>) => RunConfig.parse({ env: 'retail', ...input });

describe('stageProgress', () => {
  it('names each stage with the steps done in it', () => {
    expect(stageProgress(cfg({ algo: 'sft+envace', sft: { steps: 400 }, steps: 8 }), 230)).toBe('SFT 230/400 → envace 0/8');
    expect(stageProgress(cfg({ algo: 'rwml+grpo-real', rwml: { stageSteps: 4 }, steps: 2 }), 5)).toBe('RWML world model 4/4 → grpo-real 1/2');
    expect(stageProgress(cfg({ algo: 'grpo-real', steps: 7 }), 3)).toBe('grpo-real 3/7');
  });
});

describe('alignToStage', () => {
  const chain = cfg({ algo: 'sft+envace', sft: { steps: 3 }, steps: 2 });
  const points = { steps: [1, 2, 3, 4, 5], values: [10, 20, 30, 40, 50] };

  it('renumbers the chosen stage from 1 and drops the others', () => {
    expect(alignToStage(points, chain, 'rl')).toEqual({ steps: [1, 2], values: [40, 50] });
    expect(alignToStage(points, chain, 'sft')).toEqual({ steps: [1, 2, 3], values: [10, 20, 30] });
    expect(alignToStage(points, chain, 'absolute')).toBe(points);
  });

  it('leaves a run without the chosen stage empty', () => {
    expect(alignToStage(points, cfg({ algo: 'envace', steps: 5 }), 'sft')).toEqual({ steps: [], values: [] });
  });
});

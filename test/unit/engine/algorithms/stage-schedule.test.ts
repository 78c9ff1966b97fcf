import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { stageLearningRate, stageResetsMoments, stageSchedule } from '../../../../electron/engine/algorithms/stage-schedule';
import { planStages } from '../../../../electron/engine/algorithms/train';

const config = (optim: object = {}) => RunConfig.parse({ env: 'retail', algo: 'sft+envace', steps: 8, sft: { steps: 400 }, optim: { lr: 1e-3, warmupSteps: 4, minLrRatio: 0.1, ...optim } });

describe('per-stage optimiser schedules', () => {
  it('the RL stage after 400 SFT steps warms up to the full rate again instead of sitting on the floor', () => {
    const c = config();
    const [sft, rl] = planStages(c);
    expect(stageLearningRate(c, sft, 400)).toBeCloseTo(1e-4, 6); // SFT ends on its floor
    expect(stageLearningRate(c, rl, 401)).toBeCloseTo(1e-3 / 4, 10); // RL: warm-up step 1 of 4
    expect(stageLearningRate(c, rl, 404)).toBeCloseTo(1e-3, 10);
    expect(stageLearningRate(c, rl, 408)).toBeGreaterThan(1e-4); // cosine over its own 8 steps
    expect(stageSchedule(c, rl).totalSteps).toBe(8);
  });

  it('each stage may override rate, warm-up, floor and shape; constant holds the rate', () => {
    const c = config({ stages: { rl: { lr: 5e-5, warmupSteps: 0, schedule: 'constant' } } });
    const [sft, rl] = planStages(c);
    expect(stageLearningRate(c, sft, 1)).toBeCloseTo(2.5e-4, 10);
    for (const step of [401, 404, 408]) expect(stageLearningRate(c, rl, step)).toBe(5e-5);
  });

  it('moments are reset at every stage but the first, unless a stage says to keep them', () => {
    const c = config();
    const [sft, rl] = planStages(c);
    expect(stageResetsMoments(c, sft, true)).toBe(false);
    expect(stageResetsMoments(c, rl, false)).toBe(true);
    const keep = config({ stages: { rl: { resetMoments: false } } });
    expect(stageResetsMoments(keep, planStages(keep)[1], false)).toBe(false);
    const rwml = RunConfig.parse({ env: 'retail', algo: 'rwml+grpo-real', steps: 4, rwml: { stageSteps: 3 }, optim: { stages: { world: { lr: 2e-3, warmupSteps: 0, schedule: 'constant' } } } });
    const [world, grpo] = planStages(rwml);
    expect([world.algo, grpo.algo]).toEqual(['rwml', 'grpo-real']);
    expect(stageLearningRate(rwml, world, 2)).toBe(2e-3);
  });
});

import { describe, expect, it } from 'vitest';
import { plannedSteps, RunConfig } from '../../../../electron/contract';
import { planStages, rolloutSettings } from '../../../../electron/engine/algorithms/train';
import { AlgorithmError } from '../../../../electron/engine/algorithms/errors';

const cfg = (o: object) => RunConfig.parse({ env: 'retail', ...o });

describe('planStages', () => {
  it('a single algorithm owns steps 1..steps', () => {
    expect(planStages(cfg({ algo: 'envace', steps: 7 }))).toEqual([{ algo: 'envace', first: 1, last: 7 }]);
  });

  it('chains run as consecutive stages of one run', () => {
    expect(planStages(cfg({ algo: 'sft+envace', steps: 5, sft: { steps: 3 } }))).toEqual([
      { algo: 'sft', first: 1, last: 3 },
      { algo: 'envace', first: 4, last: 8 },
    ]);
    expect(planStages(cfg({ algo: 'rwml+grpo-real', steps: 2, rwml: { stageSteps: 4 } })).map((s) => [s.algo, s.first, s.last])).toEqual([
      ['rwml', 1, 4],
      ['grpo-real', 5, 6],
    ]);
  });

  it('every RL method starts with the SFT warm start when sft.steps > 0, and the run counts it', () => {
    for (const algo of ['grpo-real', 'envace', 'paw', 'envace-no-rehearse-loss'] as const) {
      const c = cfg({ algo, steps: 4, sft: { steps: 6 } });
      expect(planStages(c).map((s) => [s.algo, s.first, s.last])).toEqual([
        ['sft', 1, 6],
        [algo, 7, 10],
      ]);
      expect(plannedSteps(c)).toBe(10);
    }
    const chain = cfg({ algo: 'rwml+grpo-real', steps: 2, sft: { steps: 3 }, rwml: { stageSteps: 4 } });
    expect(planStages(chain).map((s) => [s.algo, s.first, s.last])).toEqual([
      ['sft', 1, 3],
      ['rwml', 4, 7],
      ['grpo-real', 8, 9],
    ]);
    expect(plannedSteps(chain)).toBe(9);
    // Plain SFT counts `steps`; sft.steps is the warm start of RL methods only.
    expect(planStages(cfg({ algo: 'sft', steps: 5, sft: { steps: 9 } }))).toEqual([{ algo: 'sft', first: 1, last: 5 }]);
    expect(plannedSteps(cfg({ algo: 'sft', steps: 5, sft: { steps: 9 } }))).toBe(5);
  });

  it('a chain with an empty first stage is refused', () => {
    expect(() => planStages(cfg({ algo: 'sft+envace' }))).toThrow(AlgorithmError);
    expect(() => planStages(cfg({ algo: 'rwml+grpo-real' }))).toThrow(/stageSteps/);
  });

  it('rollout settings come from the config', () => {
    expect(rolloutSettings(cfg({ rollout: { maxTurns: 3, pReal: 0.5 } }))).toMatchObject({
      maxTurns: 3,
      pReal: 0.5,
      toolSchemas: 'compact',
      temperature: 1,
    });
  });
});

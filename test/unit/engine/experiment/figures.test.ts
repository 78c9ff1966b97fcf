import { describe, expect, it } from 'vitest';
import type { MetricSeries } from '../../../../electron/contract';
import { checkedSteps, countErrors, spread, stepTiming } from '../../../../electron/engine/experiment/figures';

const series = (key: string, steps: number[], values: number[]): MetricSeries => ({ key, steps, values, min: [], max: [], total: steps.length }) as MetricSeries;

describe('stepTiming', () => {
  it('splits each step into generation, environment and training from what the loops logged, then averages', () => {
    const byKey = new Map([
      ['step_ms', series('step_ms', [1, 2], [1000, 3000])],
      ['tokens_generated', series('tokens_generated', [1, 2], [400, 1200])],
      ['tokens_per_s', series('tokens_per_s', [1, 2], [1000, 1000])],
    ]);
    // Rollout phases 400 and 1,200 ms, of which the stored rollouts spent 100 and 300 ms in the env.
    const t = stepTiming(
      byKey,
      new Map([
        [1, 100],
        [2, 300],
      ]),
    );
    expect(t).toEqual({ steps: 2, stepMs: 2000, rolloutMs: 800, envMs: 200, generationMs: 600, trainMs: 1200 });
  });

  it('what was not logged stays null rather than a guess', () => {
    expect(stepTiming(new Map(), new Map())).toBeNull();
    const onlyStep = stepTiming(new Map([['step_ms', series('step_ms', [1], [500])]]), new Map());
    expect(onlyStep).toEqual({ steps: 1, stepMs: 500, rolloutMs: null, envMs: null, generationMs: null, trainMs: null });
  });
});

describe('helpers', () => {
  it('counts observations of a role that start with "Error" (after leading space)', () => {
    const turns = [
      { role: 'env', text: ' Error: no such order' },
      { role: 'env', text: '{"status":"delivered"}' },
      { role: 'rehearse', text: 'Error: invented' },
      { role: 'act', text: 'Error in my head' },
    ];
    expect(countErrors(turns, 'env')).toEqual({ errors: 1, total: 2 });
    expect(countErrors(turns, 'rehearse')).toEqual({ errors: 1, total: 1 });
  });

  it('reality-checks the first and last RL step, and every n-th between', () => {
    expect(checkedSteps(8, 0)).toEqual([1, 8]);
    expect(checkedSteps(10, 4)).toEqual([1, 5, 9, 10]);
    expect(checkedSteps(1, 0)).toEqual([1]);
  });

  it('spread takes items evenly over the whole list', () => {
    expect(spread([1, 2, 3, 4, 5, 6], 3)).toEqual([1, 3, 5]);
    expect(spread([1, 2], 5)).toEqual([1, 2]);
  });
});

import { describe, expect, it } from 'vitest';
import { lineChartData, lineChartOptions } from '../../../renderer/src/charts/line-chart-options';

const config = { width: 400, height: 200, logX: false, showRaw: true, colors: { line: 'blue', raw: 'grey', axis: 'black', grid: 'white' }, formatValue: (v: number) => `v${v}` };

describe('lineChartOptions', () => {
  it('draws the smoothed series over a faint raw one, x = step, not time', () => {
    const options = lineChartOptions('reward', config);
    expect(options.series.map((s) => s.label)).toEqual(['step', 'raw', 'reward']);
    expect(options.series[2]!.stroke).toBe('blue');
    expect(options.series[1]!.stroke).toBe('grey');
    expect(options.scales!.x!.time).toBe(false);
    expect(options.scales!.x!.distr).toBe(1);
  });
  it('switches x to asinh (log-like, defined at step 0) for log-x, and drops raw when unsmoothed', () => {
    const options = lineChartOptions('loss', { ...config, logX: true, showRaw: false });
    expect(options.scales!.x!.distr).toBe(4);
    expect(options.series.map((s) => s.label)).toEqual(['step', 'loss']);
  });
  it('formats hover values with the given formatter', () => {
    const value = lineChartOptions('reward', config).series[2]!.value as (u: unknown, v: number | null) => string;
    expect(value(null, 0.5)).toBe('v0.5');
    expect(value(null, null)).toBe('—');
  });
  it('lays data out in the same series order', () => {
    expect(lineChartData([1, 2], [3, 4], [5, 6], true)).toEqual([[1, 2], [3, 4], [5, 6]]);
    expect(lineChartData([1, 2], [3, 4], [5, 6], false)).toEqual([[1, 2], [5, 6]]);
  });
});

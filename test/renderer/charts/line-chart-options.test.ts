import { describe, expect, it } from 'vitest';
import { formatTicks, lineChartData, lineChartOptions, STEP_INCREMENTS, valueRange, type LineChartConfig } from '../../../renderer/src/charts/line-chart-options';

const config: LineChartConfig = {
  width: 400,
  height: 200,
  logX: false,
  lines: [{ label: 'reward', color: 'blue' }],
  raw: { color: 'grey' },
  colors: { axis: 'black', grid: 'white' },
  formatValue: (v: number) => `v${v}`,
};

describe('lineChartOptions', () => {
  it('draws the smoothed series over a faint raw one, x = step, not time', () => {
    const options = lineChartOptions(config);
    expect(options.series.map((s) => s.label)).toEqual(['step', 'raw', 'reward']);
    expect(options.series[2]!.stroke).toBe('blue');
    expect(options.series[1]!.stroke).toBe('grey');
    expect(options.scales!.x!.time).toBe(false);
    expect(options.scales!.x!.distr).toBe(1);
  });
  it('switches x to asinh (log-like, defined at step 0) for log-x', () => {
    expect(lineChartOptions({ ...config, logX: true }).scales!.x!.distr).toBe(4);
  });
  it('draws one gap-spanning line per compared run and no raw series', () => {
    const options = lineChartOptions({ ...config, raw: null, lines: [{ label: 'run a', color: 'blue' }, { label: 'run b', color: 'orange' }] });
    expect(options.series.map((s) => [s.label, s.stroke])).toEqual([
      ['step', undefined],
      ['run a', 'blue'],
      ['run b', 'orange'],
    ]);
    expect(options.series[2]!.spanGaps).toBe(true);
  });
  it('formats hover values with the given formatter', () => {
    const value = lineChartOptions(config).series[2]!.value as (u: unknown, v: number | null) => string;
    expect(value(null, 0.5)).toBe('v0.5');
    expect(value(null, null)).toBe('—');
  });
  it('lays data out in the same series order', () => {
    expect(lineChartData([1, 2], [[5, 6]], [3, 4])).toEqual([[1, 2], [3, 4], [5, 6]]);
    expect(lineChartData([1, 2], [[5, 6], [7, null]], null)).toEqual([[1, 2], [5, 6], [7, null]]);
  });
});

describe('axes and ranges', () => {
  it('ticks x only at whole steps', () => {
    const axes = lineChartOptions(config).axes!;
    expect(axes[0]!.incrs).toBe(STEP_INCREMENTS);
    expect(STEP_INCREMENTS.every((n) => Number.isInteger(n))).toBe(true);
  });
  it('pads a span by 5 % and gives a flat series a visible band around its value', () => {
    expect(valueRange(0, 10)).toEqual([-0.5, 10.5]);
    expect(valueRange(0, 0)).toEqual([-1, 1]);
    const [lo, hi] = valueRange(3e-4, 3e-4);
    expect(lo).toBeCloseTo(2.7e-4, 12);
    expect(hi).toBeCloseTo(3.3e-4, 12);
    expect(valueRange(null, null)).toEqual([0, 1]);
  });
  it('treats a span of a few ulps as flat (uPlot cannot tick it: its split loop would never advance)', () => {
    const [lo, hi] = valueRange(0.3, 0.30000000000000004);
    expect(lo).toBeCloseTo(0.27, 12);
    expect(hi).toBeCloseTo(0.33, 12);
    expect(valueRange(1e9, 1e9 + 1e-3)).toEqual(valueRange(1e9 + 5e-4, 1e9 + 5e-4));
    // A real span, however small, keeps its 5 % padding.
    expect(valueRange(1e-12, 2e-12)[1]).toBeCloseTo(2.05e-12, 20);
  });
  it('uses the range function for y', () => {
    const range = lineChartOptions(config).scales!.y!.range as (u: unknown, min: number, max: number) => [number, number];
    expect(range(null, 2, 2)).toEqual([1.8, 2.2]);
  });
});

describe('formatTicks', () => {
  it('gives neighbouring ticks distinct labels from their spacing', () => {
    expect(formatTicks([6.2941, 6.29415, 6.2942])).toEqual(['6.29410', '6.29415', '6.29420']);
    expect(formatTicks([0, 0.25, 0.5, 0.75, 1])).toEqual(['0.00', '0.25', '0.50', '0.75', '1.00']);
    expect(formatTicks([0, 1000, 2000, 3000])).toEqual(['0', '1,000', '2,000', '3,000']);
  });
  it('switches to exponents for tiny or huge magnitudes', () => {
    expect(formatTicks([5e-5, 1e-4, 1.5e-4])).toEqual(['5.0e-5', '1.0e-4', '1.5e-4']);
    expect(formatTicks([0, 2e6, 4e6])).toEqual(['0', '2e6', '4e6']);
  });
  it('copes with a single tick', () => {
    expect(formatTicks([3])).toEqual(['3']);
  });
});

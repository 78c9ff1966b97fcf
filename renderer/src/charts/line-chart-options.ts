import type uPlot from 'uplot';

export interface ChartLine {
  label: string;
  color: string;
}

export interface LineChartConfig {
  width: number;
  height: number;
  /** Log-scaled steps. Steps start at 0, so the axis uses asinh, which is log-like but defined at 0. */
  logX: boolean;
  /** One line per run (the first is the run being watched, the rest are compared runs). */
  lines: ChartLine[];
  /** A single run's raw (unsmoothed) values drawn faintly under its smoothed line; off when comparing. */
  raw: { color: string } | null;
  colors: { axis: string; grid: string };
  formatValue: (value: number) => string;
}

/** Steps are whole numbers: the x axis never ticks at 1.25. */
export const STEP_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];

/**
 * The y range: the data's span padded by 5 % each side; a flat series (a metric stuck at 0,
 * a constant learning rate) gets ±10 % of its value (±1 at 0) instead of an arbitrary 0–100.
 * A span of a few float ulps (0.3 vs 0.30000000000000004) counts as flat: padded by 5 % of
 * itself it would ask uPlot for ticks finer than the values can step, and its tick loop never ends.
 */
export function valueRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (max - min <= Math.max(Math.abs(min), Math.abs(max)) * 1e-9) {
    const mid = (min + max) / 2;
    const pad = Math.abs(mid) * 0.1 || 1;
    return [mid - pad, mid + pad];
  }
  const pad = (max - min) * 0.05;
  return [min - pad, max + pad];
}

/**
 * Axis tick labels with just enough digits to tell neighbours apart, from the tick spacing:
 * entropy ticks 6.29405 / 6.2941 stay distinct, learning rates stay readable (5e-5, 1.0e-4).
 */
export function formatTicks(ticks: number[]): string[] {
  const finite = ticks.filter((t) => Number.isFinite(t));
  let step = Infinity;
  for (let i = 1; i < finite.length; i += 1) {
    const d = Math.abs(finite[i]! - finite[i - 1]!);
    if (d > 0 && d < step) step = d;
  }
  const largest = Math.max(0, ...finite.map((t) => Math.abs(t)));
  if (!Number.isFinite(step)) step = largest || 1;
  if (largest >= 1e6 || (largest > 0 && largest < 1e-3)) {
    const exponent = Math.floor(Math.log10(largest));
    const digits = decimalsOf(step / 10 ** exponent);
    return ticks.map((t) => (t === 0 ? '0' : t.toExponential(digits).replace('e+', 'e')));
  }
  const decimals = decimalsOf(step);
  return ticks.map((t) => t.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }));
}

/** The fewest decimals that write `step` exactly (0.25 → 2, 5e-5 → 5), at most 10. */
function decimalsOf(step: number): number {
  for (let d = 0; d < 10; d += 1) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
  }
  return 10;
}

/** uPlot options for one metric: x = step, one smoothed series per line. Pure, so it is tested. */
export function lineChartOptions(config: LineChartConfig): uPlot.Options {
  const axis = { stroke: config.colors.axis, grid: { stroke: config.colors.grid, width: 1 }, ticks: { stroke: config.colors.grid, width: 1 } };
  const value = (_u: uPlot, v: number | null) => (v === null || v === undefined ? '—' : config.formatValue(v));
  const series: uPlot.Series[] = [{ label: 'step', value: (_u, v) => (v === null ? '—' : String(v)) }];
  if (config.raw) series.push({ label: 'raw', stroke: config.raw.color, width: 1, value, points: { show: false } });
  for (const line of config.lines) series.push({ label: line.label, stroke: line.color, width: 2, value, points: { show: false }, spanGaps: true });
  return {
    width: config.width,
    height: config.height,
    scales: { x: { time: false, distr: config.logX ? 4 : 1 }, y: { auto: true, range: (_u, min, max) => valueRange(min, max) } },
    // The hover legend uses formatValue; tick labels follow the tick spacing.
    axes: [
      { ...axis, label: 'step', incrs: STEP_INCREMENTS },
      { ...axis, size: 64, values: (_u, ticks) => formatTicks(ticks) },
    ],
    series,
    cursor: { drag: { x: true, y: false } },
    legend: { live: true },
  };
}

/** Data in uPlot's aligned layout, matching lineChartOptions' series order (raw first when shown). */
export function lineChartData(steps: number[], lines: Array<Array<number | null>>, raw: Array<number | null> | null): uPlot.AlignedData {
  return raw ? [steps, raw, ...lines] : [steps, ...lines];
}

/** Distinct line colours for compared runs, after the theme's accent for the watched run. */
export const comparePalette = ['#e8590c', '#2b8a3e', '#ae3ec9', '#c92a2a', '#1098ad', '#5c940d'];

import type uPlot from 'uplot';

export interface LineChartConfig {
  width: number;
  height: number;
  /** Log-scaled steps. Steps start at 0, so the axis uses asinh, which is log-like but defined at 0. */
  logX: boolean;
  /** Colours from the theme (CSS variables resolved by the caller). */
  colors: { line: string; raw: string; axis: string; grid: string };
  /** Whether a raw (unsmoothed) series is drawn faintly under the smoothed one. */
  showRaw: boolean;
  formatValue: (value: number) => string;
}

/** uPlot options for one metric: x = step, series = smoothed (and raw). Pure, so it is tested. */
export function lineChartOptions(key: string, config: LineChartConfig): uPlot.Options {
  const axis = { stroke: config.colors.axis, grid: { stroke: config.colors.grid, width: 1 }, ticks: { stroke: config.colors.grid, width: 1 } };
  const value = (_u: uPlot, v: number | null) => (v === null || v === undefined ? '—' : config.formatValue(v));
  const series: uPlot.Series[] = [{ label: 'step', value: (_u, v) => (v === null ? '—' : String(v)) }];
  if (config.showRaw) series.push({ label: 'raw', stroke: config.colors.raw, width: 1, value, points: { show: false } });
  series.push({ label: key, stroke: config.colors.line, width: 2, value, points: { show: false } });
  return {
    width: config.width,
    height: config.height,
    scales: { x: { time: false, distr: config.logX ? 4 : 1 }, y: { auto: true } },
    axes: [
      { ...axis, label: 'step' },
      { ...axis, size: 60, values: (_u, ticks) => ticks.map((t) => config.formatValue(t)) },
    ],
    series,
    cursor: { drag: { x: true, y: false } },
    legend: { live: true },
  };
}

/** Data in uPlot's aligned layout, matching lineChartOptions' series order. */
export function lineChartData(steps: number[], raw: number[], smoothed: number[], showRaw: boolean): uPlot.AlignedData {
  return showRaw ? [steps, raw, smoothed] : [steps, smoothed];
}

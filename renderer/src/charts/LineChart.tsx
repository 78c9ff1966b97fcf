import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatNumber } from '../format/units';
import { useColorScheme } from '../hooks/useColorScheme';
import { comparePalette, lineChartData, lineChartOptions } from './line-chart-options';
import { alignSeries, smooth, type Points } from './series';

export interface RunLine extends Points {
  label: string;
}

interface LineChartProps {
  metric: string;
  /** The watched run first, then compared runs. */
  lines: RunLine[];
  smoothing: number;
  logX: boolean;
  height?: number;
}

function themeColors(element: HTMLElement) {
  const css = getComputedStyle(element);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return { accent: v('--accent', '#3553d6'), raw: v('--border', '#bbbbbb'), axis: v('--muted', '#666666'), grid: v('--surface-2', '#eeeeee') };
}

/**
 * The one wrapper around uPlot: builds the chart when its shape or theme changes (log-x, raw
 * series, which runs, OS scheme), pushes new data otherwise, and follows its container's width.
 */
export function LineChart({ metric, lines, smoothing, logX, height = 220 }: LineChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const scheme = useColorScheme();
  const showRaw = smoothing > 0 && lines.length === 1;
  const aligned = alignSeries(lines);
  const smoothed = aligned.values.map((row) => {
    // Smooth over the points the run logged, keeping its gaps where it logged nothing.
    const present = row.filter((v): v is number => v !== null);
    const out = smooth(present, smoothing);
    let i = 0;
    return row.map((v) => (v === null ? null : out[i++]!));
  });
  const data = lineChartData(aligned.steps, smoothed, showRaw ? aligned.values[0]! : null);
  const latest = useRef(data);
  latest.current = data;
  const shape = lines.map((l) => l.label).join('\u0000');

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const colors = themeColors(element);
    const labels = shape.split('\u0000');
    const options = lineChartOptions({
      width: element.clientWidth || 400,
      height,
      logX,
      lines: labels.map((label, i) => ({ label: labels.length > 1 ? label : metric, color: i === 0 ? colors.accent : comparePalette[(i - 1) % comparePalette.length]! })),
      raw: showRaw ? { color: colors.raw } : null,
      colors,
      formatValue: formatNumber,
    });
    const chart = new uPlot(options, latest.current, element);
    plot.current = chart;
    const observer = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [metric, logX, showRaw, height, scheme, shape]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  return <div ref={container} className="line-chart" role="img" aria-label={`${metric} by step, ${lines.map((l) => `${l.label}: ${l.steps.length} points`).join('; ')}`} />;
}

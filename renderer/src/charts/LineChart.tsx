import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatNumber } from '../format/units';
import { useColorScheme } from '../hooks/useColorScheme';
import { lineChartData, lineChartOptions } from './line-chart-options';
import { smooth } from './series';

interface LineChartProps {
  metric: string;
  steps: number[];
  values: number[];
  smoothing: number;
  logX: boolean;
  height?: number;
}

function themeColors(element: HTMLElement) {
  const css = getComputedStyle(element);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return { line: v('--accent', '#3553d6'), raw: v('--border', '#bbbbbb'), axis: v('--muted', '#666666'), grid: v('--surface-2', '#eeeeee') };
}

/**
 * The one wrapper around uPlot: builds the chart when its shape or theme changes (log-x, raw series, OS scheme),
 * pushes new data otherwise, and follows its container's width.
 */
export function LineChart({ metric, steps, values, smoothing, logX, height = 220 }: LineChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const scheme = useColorScheme();
  const showRaw = smoothing > 0;
  const data = lineChartData(steps, values, smooth(values, smoothing), showRaw);
  const latest = useRef(data);
  latest.current = data;

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const options = lineChartOptions(metric, { width: element.clientWidth || 400, height, logX, showRaw, colors: themeColors(element), formatValue: formatNumber });
    const chart = new uPlot(options, latest.current, element);
    plot.current = chart;
    const observer = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [metric, logX, showRaw, height, scheme]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  return <div ref={container} className="line-chart" role="img" aria-label={`${metric} by step, ${steps.length} points`} />;
}

import { useEffect, useState } from 'react';
import type { MetricSeries } from '../../../electron/contract';
import { addPoint, type Points } from '../charts/series';
import { useCall } from './useCall';
import { useEvent } from './useEvents';

const MAX_POINTS = 2000;

/**
 * A run's metric series: the stored history (down-sampled by the engine to MAX_POINTS) plus
 * live `run.metrics` points as they arrive. When live points double a series, the history is
 * fetched again so the engine down-samples it rather than the page growing without bound.
 */
export function useRunMetrics(runId: string | undefined) {
  const query = useCall('metrics.query', runId ? { runId, maxPoints: MAX_POINTS } : null);
  const [series, setSeries] = useState<Record<string, Points>>({});

  useEffect(() => {
    if (!query.data) return;
    setSeries(Object.fromEntries(query.data.series.map((s: MetricSeries) => [s.key, { steps: s.steps, values: s.values }])));
  }, [query.data]);

  useEvent('run.metrics', (event) => {
    if (event.runId !== runId) return;
    setSeries((current) => {
      const next = { ...current };
      for (const [key, value] of Object.entries(event.values)) next[key] = addPoint(next[key] ?? { steps: [], values: [] }, event.step, value);
      return next;
    });
  });

  const longest = Object.values(series).reduce((n, s) => Math.max(n, s.steps.length), 0);
  const { reload } = query;
  useEffect(() => {
    if (longest > 2 * MAX_POINTS) reload();
  }, [longest > 2 * MAX_POINTS, reload]);

  return { series, error: query.error, loading: query.loading && !query.data, reload: query.reload };
}

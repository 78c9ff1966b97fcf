import { useCallback, useEffect, useRef, useState } from 'react';
import { addPoint, type Points } from '../charts/series';
import { useApi, useReconnectEpoch } from '../api/context';
import { useEvent } from './useEvents';

const MAX_POINTS = 2000;

export type RunSeries = Record<string, Points>;

/**
 * Metric series of one or more runs: the stored history (down-sampled by the engine to
 * MAX_POINTS) plus live `run.metrics` points as they arrive. When live points double a series,
 * the history is fetched again so the engine down-samples it rather than the page growing
 * without bound.
 */
export function useRunMetrics(runIds: string[]) {
  const api = useApi();
  const epoch = useReconnectEpoch();
  const [series, setSeries] = useState<Record<string, RunSeries>>({});
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [nonce, setNonce] = useState(0);
  const ticket = useRef(0);
  const key = runIds.join(',');

  useEffect(() => {
    const ids = key ? key.split(',') : [];
    const mine = ++ticket.current;
    if (ids.length === 0) {
      setSeries({});
      return;
    }
    setLoading(true);
    Promise.all(ids.map((runId) => api.call('metrics.query', { runId, maxPoints: MAX_POINTS }))).then(
      (answers) => {
        if (mine !== ticket.current) return;
        setSeries(Object.fromEntries(answers.map((a) => [a.runId, Object.fromEntries(a.series.map((s) => [s.key, { steps: s.steps, values: s.values }]))])));
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (mine !== ticket.current) return;
        setError(e);
        setLoading(false);
      },
    );
  }, [api, key, nonce, epoch]);

  useEvent('run.metrics', (event) => {
    if (!key.split(',').includes(event.runId)) return;
    setSeries((current) => {
      const run = { ...current[event.runId] };
      for (const [metric, value] of Object.entries(event.values)) run[metric] = addPoint(run[metric] ?? { steps: [], values: [] }, event.step, value);
      return { ...current, [event.runId]: run };
    });
  });

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const overflow = Object.values(series).some((run) => Object.values(run).some((s) => s.steps.length > 2 * MAX_POINTS));
  useEffect(() => {
    if (overflow) reload();
  }, [overflow, reload]);

  return { series, error, loading: loading && Object.keys(series).length === 0, reload };
}

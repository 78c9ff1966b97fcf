import { useEffect, useState } from 'react';
import type { EventPayload } from '../../../../electron/contract';
import { useApi, useReconnectEpoch } from '../../api/context';
import { ErrorNotice } from '../../components/Notice';
import { formatAbsoluteTime, formatClockTime } from '../../format/time';
import { useEvent } from '../../hooks/useEvents';

const KEEP = 300;

type Line = EventPayload<'run.log'>;
const lineKey = (l: Line) => `${l.time}\u0000${l.level}\u0000${l.message}`;

/** Stored lines first, then live ones the stored answer did not already hold (a line can arrive both ways while the query is in flight). */
export function mergeLines(stored: readonly Line[], live: readonly Line[]): Line[] {
  const seen = new Set(stored.map(lineKey));
  return [...stored, ...live.filter((l) => !seen.has(lineKey(l)))].slice(-KEEP);
}

/** The run's log: the lines the engine stored (runs.log, so a reload keeps them), then live `run.log` events. */
export function RunLog({ runId }: { runId: string }) {
  const api = useApi();
  const epoch = useReconnectEpoch();
  const [stored, setStored] = useState<Line[]>([]);
  const [live, setLive] = useState<Line[]>([]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let current = true;
    api.call('runs.log', { id: runId, limit: KEEP }).then(
      (answer) => current && (setStored(answer.lines), setError(null)),
      (e: unknown) => current && setError(e),
    );
    return () => {
      current = false;
    };
  }, [api, runId, epoch]);
  useEvent('run.log', (line) => {
    if (line.runId === runId) setLive((current) => [...current.slice(-(KEEP - 1)), line]);
  });
  const lines = mergeLines(stored, live);
  return (
    <section className="card run-log" aria-labelledby="log-title" data-testid="run-log">
      <h2 id="log-title">Log</h2>
      {error ? <ErrorNotice error={error} /> : null}
      {lines.length === 0 ? (
        <p className="muted">No log lines yet: the engine logs stage changes, evaluations and warnings here as the run trains.</p>
      ) : (
        <ol className="log-lines" aria-live="polite">
          {lines.map((line, i) => (
            <li key={i} className={`log-${line.level}`}>
              <time className="muted" dateTime={new Date(line.time).toISOString()} title={formatAbsoluteTime(line.time)}>
                {formatClockTime(line.time)}
              </time> {line.message}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

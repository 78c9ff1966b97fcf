import { useState } from 'react';
import type { EventPayload } from '../../../../electron/contract';
import { formatAbsoluteTime, formatClockTime } from '../../format/time';
import { useEvent } from '../../hooks/useEvents';

const KEEP = 300;

/** The run's log lines as the engine sends them (live only: the store keeps metrics, not logs). */
export function RunLog({ runId }: { runId: string }) {
  const [lines, setLines] = useState<Array<EventPayload<'run.log'>>>([]);
  useEvent('run.log', (line) => {
    if (line.runId === runId) setLines((current) => [...current.slice(-(KEEP - 1)), line]);
  });
  return (
    <section className="card run-log" aria-labelledby="log-title" data-testid="run-log">
      <h2 id="log-title">Log</h2>
      {lines.length === 0 ? (
        <p className="muted">No log lines since this page opened.</p>
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

import { useState } from 'react';
import type { Job } from '../../../electron/contract';
import { useApi } from '../api/context';
import { formatDuration, formatPercent } from '../format/units';
import { useElapsed } from '../hooks/useElapsed';
import { ErrorNotice } from './Notice';

/**
 * A long action in progress: what the job says, how far (when the engine knows), time spent,
 * and Cancel. Before the job's first event it still shows the spinner and the clock.
 */
export function JobProgress({ job, since, what }: { job: Job | null; since: number; what: string }) {
  const api = useApi();
  const elapsed = useElapsed(since);
  const [error, setError] = useState<unknown>(null);
  const [cancelling, setCancelling] = useState(false);
  const cancel = async () => {
    if (!job) return;
    setCancelling(true);
    setError(null);
    try {
      await api.call('jobs.cancel', { id: job.id });
    } catch (e) {
      setError(e);
      setCancelling(false);
    }
  };
  return (
    <div className="job-progress" role="status" data-testid="job-progress" data-state={job?.state ?? 'starting'}>
      <div className="row">
        <span className="spinner" aria-hidden="true" />
        <strong>{job ? (job.state === 'queued' ? `Queued: ${what}` : `${what}…`) : `Starting: ${what}…`}</strong>
        <span className="muted">{formatDuration(elapsed)}</span>
        {job && (job.state === 'queued' || job.state === 'running') && (
          <button type="button" className="button button-small" onClick={cancel} disabled={cancelling}>
            {cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
      </div>
      {job?.fraction !== null && job?.fraction !== undefined ? (
        <p className="row">
          <progress max={1} value={job.fraction} aria-label={`${what} progress`} /> {formatPercent(job.fraction)}
          {job.etaMs !== null && <span className="muted">about {formatDuration(job.etaMs)} left</span>}
        </p>
      ) : null}
      {job?.message && <p className="muted job-message">{job.message}</p>}
      {error ? <ErrorNotice error={error} /> : null}
    </div>
  );
}

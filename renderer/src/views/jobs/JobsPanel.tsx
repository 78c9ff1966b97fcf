import { useState } from 'react';
import type { Job } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { ErrorNotice } from '../../components/Notice';
import { RelativeTime } from '../../components/RelativeTime';
import { formatDuration, formatPercent } from '../../format/units';
import { useCall } from '../../hooks/useCall';
import { useThrottledEvents } from '../../hooks/useEvents';

const stateTone: Record<Job['state'], string> = { queued: 'info', running: 'active', completed: 'good', failed: 'bad', cancelled: 'neutral' };

function JobRow({ job, onCancelled }: { job: Job; onCancelled: () => void }) {
  const api = useApi();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const live = job.state === 'queued' || job.state === 'running';
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.call('jobs.cancel', { id: job.id });
      onCancelled();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="job" data-job-id={job.id} data-state={job.state}>
      <div className="row job-head">
        <span className={`badge badge-${stateTone[job.state]}`}>{job.state}</span>
        <strong>{job.label}</strong>
        <span className="muted">{job.kind}</span>
        {job.runId && <a href={routeHref('dashboard', { run: job.runId })}>{job.runId}</a>}
        <span className="muted">
          <RelativeTime time={job.createdAt} />
        </span>
        {live && (
          <button type="button" className="button button-small" onClick={cancel} disabled={busy || job.message === 'cancelling…'} aria-label={`Cancel job ${job.label}`}>
            Cancel
          </button>
        )}
      </div>
      {job.state === 'running' && (
        <div className="progress-cell">
          <progress max={1} value={job.fraction ?? undefined} aria-label={`${job.label} progress`} />
          <span className="numeric">{job.fraction === null ? 'working…' : formatPercent(job.fraction, 0)}</span>
          {job.etaMs !== null && <span className="muted">ETA {formatDuration(job.etaMs)}</span>}
        </div>
      )}
      <p className="muted job-message">{job.error ?? job.message}</p>
      {error ? <ErrorNotice error={error} /> : null}
    </li>
  );
}

/** Queued, running and recent jobs (train, evaluate, rehearse, export…), live, each cancellable while it can be. */
export function JobsPanel() {
  const jobs = useCall('jobs.list', {});
  useThrottledEvents(['job.update'], jobs.reload, 300);
  const items = [...(jobs.data?.items ?? [])].reverse();
  return (
    <section className="card" aria-labelledby="jobs-title" data-testid="jobs">
      <h2 id="jobs-title">Jobs</h2>
      {jobs.error ? <ErrorNotice error={jobs.error} onRetry={jobs.reload} /> : null}
      {jobs.data && items.length === 0 && <p className="muted">No jobs yet. Training, evaluation, rehearsal and export run here one at a time, each cancellable.</p>}
      <ul className="job-list">
        {items.map((job) => (
          <JobRow key={job.id} job={job} onCancelled={jobs.reload} />
        ))}
      </ul>
    </section>
  );
}

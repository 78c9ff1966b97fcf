import { routeHref } from '../../app/routes';
import { useCall } from '../../hooks/useCall';
import { useThrottledEvents } from '../../hooks/useEvents';

/** The sidebar's "something is running" line, from any view; links to the Jobs list. */
export function JobsIndicator() {
  const jobs = useCall('jobs.list', {});
  useThrottledEvents(['job.update'], jobs.reload, 500);
  const items = jobs.data?.items ?? [];
  const running = items.filter((j) => j.state === 'running').length;
  const queued = items.filter((j) => j.state === 'queued').length;
  if (running + queued === 0) return null;
  const parts = [running ? `${running} job${running === 1 ? '' : 's'} running` : null, queued ? `${queued} queued` : null].filter(Boolean);
  return (
    <a className="jobs-indicator" href={routeHref('system')} data-testid="jobs-indicator">
      <span className="spinner" aria-hidden="true" /> {parts.join(', ')}
    </a>
  );
}

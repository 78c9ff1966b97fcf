import type { RunStatus } from '../../../electron/contract';

const tone: Record<RunStatus, string> = {
  created: 'neutral',
  queued: 'info',
  running: 'active',
  completed: 'good',
  failed: 'bad',
  cancelled: 'neutral',
  interrupted: 'warn',
};

export function StatusBadge({ status }: { status: RunStatus }) {
  return <span className={`badge badge-${tone[status]}`}>{status}</span>;
}

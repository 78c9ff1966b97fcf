import { useEffect } from 'react';
import { useCall } from '../hooks/useCall';

/** How often a read-only window looks again: the owner may have stopped meanwhile. */
const RECHECK_MS = 30_000;

/**
 * One writer per data home: when another process (a CLI training, a second window) owns this
 * home, this engine is attached read-only, and the user should know why actions are refused.
 */
export function HomeAccessBanner() {
  const info = useCall('system.info', {});
  const access = info.data?.dataHomeAccess;
  const readOnly = access !== undefined && !access.writable;
  const { reload } = info;
  useEffect(() => {
    if (!readOnly) return;
    const timer = setInterval(reload, RECHECK_MS);
    return () => clearInterval(timer);
  }, [readOnly, reload]);
  if (!readOnly) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="home-access-banner">
      Read-only: this data home is in use by {access.owner ?? 'another engine'}. You can browse runs, curves and rollouts; starting, resuming, deleting,
      evaluating and exporting wait until that process stops.
    </div>
  );
}

import { formatDuration } from '../format/units';
import { useElapsed } from '../hooks/useElapsed';

/** Time since `since` (ms since the epoch), ticking every second: for anything long without a fraction to show. */
export function Elapsed({ since }: { since: number }) {
  return <span className="numeric">{formatDuration(useElapsed(since))}</span>;
}

import { useEffect, useState } from 'react';
import { formatDuration } from '../format/units';

/** Time since `since` (ms since the epoch), ticking every second: for anything long without a fraction to show. */
export function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <span className="numeric">{formatDuration(Math.max(0, now - since))}</span>;
}

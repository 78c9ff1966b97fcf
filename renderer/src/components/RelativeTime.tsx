import { useEffect, useState } from 'react';
import { formatAbsoluteTime, formatRelativeTime } from '../format/time';

/** "5 minutes ago", with the absolute time on hover; re-renders every 30 s so it stays true. */
export function RelativeTime({ time }: { time: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <time dateTime={new Date(time).toISOString()} title={formatAbsoluteTime(time)}>
      {formatRelativeTime(time, now)}
    </time>
  );
}

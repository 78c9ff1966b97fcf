/** Times shown relative ("3 min ago") with the absolute time on hover (workbench.md conventions). */

const UNITS: Array<[unit: Intl.RelativeTimeFormatUnit, ms: number]> = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
  ['second', 1000],
];

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** `then` relative to `now` (both ms since the epoch): "just now", "5 minutes ago", "in 2 hours". */
export function formatRelativeTime(then: number, now: number = Date.now()): string {
  if (!Number.isFinite(then)) return '—';
  const delta = then - now;
  if (Math.abs(delta) < 10_000) return 'just now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(delta) >= size) return relative.format(Math.trunc(delta / size), unit);
  }
  return relative.format(Math.trunc(delta / 1000), 'second');
}

/** The time of day to the second, for log lines. */
export function formatClockTime(time: number, timeZone?: string): string {
  if (!Number.isFinite(time)) return '—';
  return new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone }).format(new Date(time));
}

/** The absolute time in the user's locale and zone, with the zone named so it is unambiguous. */
export function formatAbsoluteTime(time: number, timeZone?: string): string {
  if (!Number.isFinite(time)) return '—';
  // dateStyle/timeStyle cannot be combined with timeZoneName (a RangeError), so the fields are spelled out.
  return new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(new Date(time));
}

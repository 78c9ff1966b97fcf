import { describe, expect, it } from 'vitest';
import { formatAbsoluteTime, formatClockTime, formatRelativeTime } from '../../../renderer/src/format/time';

const now = Date.UTC(2026, 10, 29, 12, 0, 0);

describe('formatRelativeTime', () => {
  it('names the largest whole unit, past and future', () => {
    expect(formatRelativeTime(now - 3_000, now)).toBe('just now');
    expect(formatRelativeTime(now - 45_000, now)).toBe('45 seconds ago');
    expect(formatRelativeTime(now - 5 * 60_000, now)).toBe('5 minutes ago');
    expect(formatRelativeTime(now - 3 * 3600_000 - 59 * 60_000, now)).toBe('3 hours ago');
    expect(formatRelativeTime(now - 86_400_000, now)).toBe('yesterday');
    expect(formatRelativeTime(now - 20 * 86_400_000, now)).toBe('2 weeks ago');
    expect(formatRelativeTime(now + 2 * 3600_000, now)).toBe('in 2 hours');
  });
});

describe('formatAbsoluteTime', () => {
  it('gives date, time and zone', () => {
    const text = formatAbsoluteTime(now, 'UTC');
    expect(text).toContain('2026');
    expect(text).toContain('12:00:00');
    expect(text).toContain('UTC');
  });
});

describe('formatClockTime', () => {
  it('gives hours, minutes and seconds', () => {
    expect(formatClockTime(now + 5_000, 'UTC')).toMatch(/^12:00:05( PM)?$/);
    expect(formatClockTime(Number.NaN)).toBe('—');
  });
});

import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, formatNumber, formatPercent, formatWallTime } from '../../../renderer/src/format/units';

describe('formatBytes', () => {
  it('uses binary units with sensible precision', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(10 * 1024 * 1024 + 512 * 1024)).toBe('10.5 MiB');
    expect(formatBytes(25_212_000_000)).toBe('23.5 GiB');
    expect(formatBytes(200 * 1024 ** 3)).toBe('200 GiB');
    expect(formatBytes(3 * 1024 ** 6)).toBe('3072 PiB');
  });
  it('shows a dash for values that are not sizes', () => {
    expect(formatBytes(-1)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });
});

describe('formatDuration', () => {
  it('picks the two largest units', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(42_400)).toBe('42 s');
    expect(formatDuration(90_000)).toBe('1 min 30 s');
    expect(formatDuration(120_000)).toBe('2 min');
    expect(formatDuration(2 * 3600_000 + 10 * 60_000)).toBe('2 h 10 min');
    expect(formatDuration(3 * 86_400_000 + 4 * 3600_000)).toBe('3 d 4 h');
    expect(formatDuration(-5)).toBe('—');
  });
});

describe('formatPercent and formatNumber', () => {
  it('formats fractions as percentages and keeps missing values visible as a dash', () => {
    expect(formatPercent(0.4567)).toBe('45.7 %');
    expect(formatPercent(1)).toBe('100 %');
    expect(formatPercent(null)).toBe('—');
  });
  it('keeps small magnitudes readable and groups large integers', () => {
    expect(formatNumber(3e-4)).toBe('3.00e-4');
    expect(formatNumber(0.123456)).toBe('0.1235');
    expect(formatNumber(12345)).toBe('12,345');
    expect(formatNumber(2.5e12)).toBe('2.50e12');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(Number.POSITIVE_INFINITY)).toBe('∞');
    expect(formatNumber(undefined)).toBe('—');
  });
});

describe('formatWallTime', () => {
  it('keeps milliseconds below a second and reads like a duration above', () => {
    expect(formatWallTime(0)).toBe('0 ms');
    expect(formatWallTime(412.6)).toBe('413 ms');
    expect(formatWallTime(999.4)).toBe('999 ms');
    expect(formatWallTime(61_000)).toBe('1 min 1 s');
    expect(formatWallTime(Number.NaN)).toBe('—');
  });
});

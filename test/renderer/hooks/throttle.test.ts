import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttle } from '../../../renderer/src/hooks/throttle';

describe('throttle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the first call at once and collapses a burst into one trailing call', () => {
    const fn = vi.fn();
    const t = throttle(fn, 500);
    t();
    expect(fn).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 10; i += 1) t();
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(499);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('runs at once again after a quiet window, and cancel drops a pending call', () => {
    const fn = vi.fn();
    const t = throttle(fn, 200);
    t();
    vi.advanceTimersByTime(300);
    t();
    expect(fn).toHaveBeenCalledTimes(2);
    t();
    t.cancel();
    vi.advanceTimersByTime(1000);
    expect(fn).toHaveBeenCalledTimes(2);
  });
});

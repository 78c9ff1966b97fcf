/**
 * Leading + trailing throttle: the first call runs at once, calls inside the window collapse
 * into one run at its end. Live events can arrive many times a second; lists refresh at most
 * once per window.
 */
export function throttle(fn: () => void, windowMs: number, timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'> = globalThis) {
  let last = -Infinity;
  let pending: ReturnType<typeof setTimeout> | null = null;
  const run = () => {
    pending = null;
    last = Date.now();
    fn();
  };
  const throttled = () => {
    if (pending) return;
    const wait = last + windowMs - Date.now();
    if (wait <= 0) run();
    else pending = timers.setTimeout(run, wait);
  };
  throttled.cancel = () => {
    if (pending) timers.clearTimeout(pending);
    pending = null;
  };
  return throttled;
}

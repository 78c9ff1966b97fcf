/** SIGINT (Ctrl+C) and SIGTERM (kill, a supervisor, a CI time-out) both ask a command to stop gracefully. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Call `stop` on the first SIGINT or SIGTERM; a second one gets Node's default (the process ends at
 * once: "again to force quit"). Returns what removes the handlers.
 */
export function onFirstStopSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  const handler = (signal: NodeJS.Signals) => {
    off();
    stop(signal);
  };
  const off = () => STOP_SIGNALS.forEach((s) => process.removeListener(s, handler));
  STOP_SIGNALS.forEach((s) => process.on(s, handler));
  return off;
}

/** The words after "cancelling …" for the signal that came. */
export function forceQuitHint(signal: NodeJS.Signals): string {
  return `(${signal === 'SIGINT' ? 'Ctrl+C' : signal} again to force quit)`;
}

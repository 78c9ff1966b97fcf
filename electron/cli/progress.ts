import cliProgress from 'cli-progress';

export interface Progress {
  update(fraction: number, label: string, etaMs: number | null): void;
  log(line: string): void;
  stop(): void;
}

/** Time left as "42s" or "3m05s", "…" while unknown. */
export function eta(ms: number | null): string {
  if (ms === null) return '…';
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * A progress bar on a TTY, plain lines otherwise (and nothing on stdout with --json, whose last
 * line must be the JSON object): long commands always say how far along they are.
 */
export function createProgress(json: boolean): Progress {
  if (json) {
    return { update: () => {}, log: (line) => process.stderr.write(`${line}\n`), stop: () => {} };
  }
  if (!process.stdout.isTTY) {
    let lastShown = -1;
    return {
      update: (fraction, label, ms) => {
        const pct = Math.floor(fraction * 100);
        if (pct === lastShown) return;
        lastShown = pct;
        process.stdout.write(`${String(pct).padStart(3)}%  ${label}  eta ${eta(ms)}\n`);
      },
      log: (line) => process.stdout.write(`${line}\n`),
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar({ format: '{bar} {percentage}% | {label} | eta {etaText}', hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic);
  bar.start(100, 0, { label: 'starting', etaText: '…' });
  return {
    update: (fraction, label, ms) => bar.update(Math.round(fraction * 100), { label, etaText: eta(ms) }),
    log: (line) => {
      process.stdout.write(`\r\x1b[K${line}\n`);
      bar.render();
    },
    stop: () => bar.stop(),
  };
}

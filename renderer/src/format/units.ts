/** Display formatting for numbers with units. Pure: the engine sends raw numbers, the UI shapes them. */

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** Binary units (what `free` and activity monitors show): 1536 → "1.5 KiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${trimZeros(value.toFixed(digits))} ${BYTE_UNITS[unit]}`;
}

/** A span of time for ETAs and durations: 42 s, 3 min 5 s, 2 h 10 min, 3 d 4 h. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    const rest = seconds % 60;
    return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    const rest = minutes % 60;
    return rest ? `${hours} h ${rest} min` : `${hours} h`;
  }
  const days = Math.floor(hours / 24);
  const rest = hours % 24;
  return rest ? `${days} d ${rest} h` : `${days} d`;
}

/** A measured wall time: milliseconds below a second (a quick evaluation is not "0 s"), else as a duration. */
export function formatWallTime(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return formatDuration(ms);
}

/** A fraction in [0, 1] as a percentage: 0.4567 → "45.7 %". */
export function formatPercent(fraction: number | null | undefined, digits = 1): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '—';
  return `${trimZeros((fraction * 100).toFixed(digits))} %`;
}

/**
 * A metric value compactly and without losing small magnitudes: learning rates (3e-4)
 * stay readable, large counts get thousands separators.
 */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '−∞';
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e9)) return value.toExponential(2).replace('e+', 'e');
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return trimZeros(value.toPrecision(abs >= 1000 ? 6 : 4));
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

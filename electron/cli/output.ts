import { ContractError, type ErrorCode } from '../contract';

/** Exit codes scripts can rely on (README "Command line"). */
export const EXIT = { ok: 0, error: 1, usage: 2, notFound: 3, notAvailable: 4, conflict: 5 } as const;

export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'invalid_input':
    case 'unknown_method':
      return EXIT.usage;
    case 'not_found':
      return EXIT.notFound;
    case 'not_available':
      return EXIT.notAvailable;
    case 'conflict':
      return EXIT.conflict;
    default:
      return EXIT.error;
  }
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function notAvailable(what: string, arrivesWith: string): CliError {
  return new CliError(`not available yet: ${what} arrives with ${arrivesWith}`, EXIT.notAvailable);
}

/** Human output to stdout, or with --json one JSON object as the last line of stdout. */
export interface Output {
  json: boolean;
  line(text: string): void;
  result(value: unknown, human: () => string | void): void;
}

export function createOutput(json: boolean, write: (s: string) => void = (s) => process.stdout.write(s)): Output {
  return {
    json,
    line: (text) => {
      if (!json) write(`${text}\n`);
    },
    result: (value, human) => {
      if (json) {
        write(`${JSON.stringify(value)}\n`);
        return;
      }
      const text = human();
      if (text) write(text.endsWith('\n') ? text : `${text}\n`);
    },
  };
}

/** Lines of an error's detail shown under its reason; the rest is counted, not printed. */
export const ERROR_DETAIL_LINES = 40;

/**
 * The reason on one line after `envace: `, and any further lines of the message indented under it
 * (a task file's problems, one per line, used to stop at "invalid task file <path>:"), with the exit
 * code for any error a command throws.
 */
export function reportError(error: unknown, writeErr: (s: string) => void = (s) => process.stderr.write(s)): number {
  if (error instanceof CliError) {
    writeErr(formatError(error.message));
    return error.exitCode;
  }
  if (error instanceof ContractError) {
    // The dispatcher's invalid_input message already spells out its issues (zod's account of them); only issues
    // the message does not name are added, or each would be printed twice.
    const unsaid = (error.issues ?? []).filter((i) => !error.message.includes(i.message));
    const detail = unsaid.length ? ` (${unsaid.map((i) => `${i.path}: ${i.message}`).join('; ')})` : '';
    const [first, ...rest] = lines(error.message);
    writeErr(formatError([`${first}${detail}`, ...rest].join('\n')));
    return exitCodeFor(error.code);
  }
  writeErr(formatError(error instanceof Error ? error.message : error));
  return EXIT.error;
}

function formatError(message: unknown): string {
  const [first = '', ...rest] = lines(message);
  const shown = rest.slice(0, ERROR_DETAIL_LINES).map((line) => `  ${line}\n`);
  const more = rest.length > ERROR_DETAIL_LINES ? [`  … ${rest.length - ERROR_DETAIL_LINES} more lines\n`] : [];
  return [`envace: ${first}\n`, ...shown, ...more].join('');
}

/**
 * The non-empty lines of whatever was thrown. Libraries do throw Errors whose message is not a
 * string, and `message.split` on one would replace the real reason with "split is not a function".
 */
function lines(value: unknown): string[] {
  let text: string;
  try {
    text = typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) ?? String(value) : String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  const all = text.split('\n').map((l) => l.trimEnd());
  const kept = all.filter((l, i) => i === 0 || l.trim() !== '');
  return kept.length ? kept : [''];
}

export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd()).join('\n');
}

export function relativeTime(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

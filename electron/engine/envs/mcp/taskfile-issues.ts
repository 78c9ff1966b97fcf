/**
 * Words for what is wrong on a task-file line: zod's issues turned into "path: message", with an
 * unknown key named and, where a known key is one or two letters away, the key that was probably
 * meant. A call item's `args` gets its own message: the file spells it `arguments` everywhere.
 */
import type { z } from 'zod';

/** The keys each object of a task line may hold, found by where the object sits and, for checklist items, their kind. */
const KNOWN_KEYS: Record<string, readonly string[]> = {
  line: ['id', 'instruction', 'split', 'checklist', 'gold', 'maxTurns'],
  call: ['kind', 'weight', 'name', 'arguments', 'description'],
  'no-call': ['kind', 'weight', 'name', 'arguments', 'description'],
  answer: ['kind', 'weight', 'expected', 'match', 'tolerance', 'description'],
  communicate: ['kind', 'weight', 'text', 'description'],
  'nl-assertion': ['kind', 'weight', 'text', 'description'],
  state: ['kind', 'weight', 'tool', 'arguments', 'match', 'description'],
  match: ['contains', 'absent', 'equals', 'subset', 'numeric', 'tolerance'],
  gold: ['calls', 'answer'],
  goldCall: ['name', 'arguments'],
};

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length];
}

/** The known key closest to `key` (case-insensitive, at most two edits), if any. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d <= 2 && d < key.length && (!best || d < best.d)) best = { key: k, d };
  }
  return best?.key;
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/** Which table of KNOWN_KEYS applies to the object at `path` of the raw line. */
function knownKeysAt(line: unknown, path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return KNOWN_KEYS.line;
  if (path[0] === 'gold') return path.length === 1 ? KNOWN_KEYS.gold : KNOWN_KEYS.goldCall;
  if (path.at(-1) === 'match') return KNOWN_KEYS.match;
  const kind = (at(line, path) as { kind?: unknown } | undefined)?.kind;
  return (typeof kind === 'string' && KNOWN_KEYS[kind]) || [];
}

function unknownKeyMessage(line: unknown, path: readonly PropertyKey[], key: string): string {
  const item = at(line, path) as { kind?: unknown } | undefined;
  if (key === 'args' && (item?.kind === 'call' || item?.kind === 'no-call')) {
    return 'write "arguments", not "args" (the key gold calls and state checks use too); an item without "arguments" matches any call of the tool';
  }
  const known = knownKeysAt(line, path);
  const guess = closestKey(key, known);
  return `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : known.length ? ` (known keys: ${known.join(', ')})` : ''}`;
}

/** Each zod issue of one task line as "path: message"; an unknown-keys issue becomes one message per key. */
export function describeTaskLineIssues(line: unknown, issues: readonly z.core.$ZodIssue[]): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const where = [...issue.path, key].join('.');
        out.push(`${where}: ${unknownKeyMessage(line, issue.path, key)}`);
      }
      continue;
    }
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    out.push(`${where}${issue.message}`);
  }
  return out;
}

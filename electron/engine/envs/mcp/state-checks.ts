/**
 * End-state checks of a user's MCP task: after the episode, call a read-only tool of the same
 * server and match what it answers, so that a write task is judged by what the world now holds,
 * not by which calls were made. They gate an episode's success (like the files env's content
 * checks); the transcript checklist, which rehearsals can score too, stays the reward.
 */
import { z } from 'zod';
import { normaliseText, parseNumber } from '../checklist';
import type { EnvCheck, JsonValue, Task } from '../types';
import type { McpCallLimits, McpConnection } from './connection';

const jsonValue = z.json();

export const STATE_ITEM_SCHEMA = z.strictObject({
  kind: z.literal('state'),
  /** Ignored by the reward (which reads transcripts only); kept so items look alike in the file. */
  weight: z.number().nonnegative().default(0),
  tool: z.string().min(1).max(200),
  arguments: z.record(z.string(), jsonValue).default({}),
  /**
   * contains: the text holds this string (case and spacing normalised); equals: the result, parsed as JSON
   * when it is JSON, equals this value; subset: every key/element given appears in the parsed result;
   * numeric: the result is this number within tolerance. `absent: true` inverts contains.
   */
  match: z.union([
    z.strictObject({ contains: z.string().min(1), absent: z.boolean().default(false) }),
    z.strictObject({ equals: jsonValue }),
    z.strictObject({ subset: jsonValue }),
    z.strictObject({ numeric: z.number(), tolerance: z.number().nonnegative().default(1e-9) }),
  ]),
  description: z.string().optional(),
});
export type StateItem = z.infer<typeof STATE_ITEM_SCHEMA>;

function parseMaybeJson(text: string): JsonValue | string {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** Is `expected` contained in `actual`: objects by key (recursively), arrays as multisets of subset-matching elements, scalars by equality. */
export function jsonSubset(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return actual === expected;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false;
    const unused = [...actual];
    return expected.every((e) => {
      const i = unused.findIndex((a) => jsonSubset(a, e));
      if (i < 0) return false;
      unused.splice(i, 1);
      return true;
    });
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return Object.entries(expected).every(([k, v]) => Object.prototype.hasOwnProperty.call(actual, k) && jsonSubset((actual as Record<string, unknown>)[k], v));
}

/**
 * Whether a tool's answer satisfies the item's match, and if not, what was wrong in words that read
 * as a failure (the check's name states the claim, so a failing line must not read like a pass).
 */
export function matchState(item: StateItem, text: string): { passed: boolean; detail?: string } {
  const m = item.match;
  const shown = `the server answered ${JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text)}`;
  let passed: boolean;
  let wrong: string;
  if ('contains' in m) {
    passed = normaliseText(text).includes(normaliseText(m.contains)) !== m.absent;
    wrong = m.absent ? `"${m.contains}" is there, and should not be` : `"${m.contains}" is missing`;
  } else if ('equals' in m) {
    passed = JSON.stringify(parseMaybeJson(text)) === JSON.stringify(m.equals) || (typeof m.equals === 'string' && normaliseText(text) === normaliseText(m.equals));
    wrong = `not equal to ${JSON.stringify(m.equals)}`;
  } else if ('subset' in m) {
    passed = jsonSubset(parseMaybeJson(text), m.subset);
    wrong = 'expected entries missing';
  } else {
    const n = parseNumber(text);
    passed = n !== null && Math.abs(n - m.numeric) <= m.tolerance;
    wrong = n === null ? `no number where ${m.numeric} was expected` : `${n} is not ${m.numeric} (tolerance ${m.tolerance})`;
  }
  return passed ? { passed } : { passed, detail: `${wrong}; ${shown}` };
}

function describe(item: StateItem): string {
  if (item.description) return item.description;
  const m = item.match;
  const what = 'contains' in m ? `${m.absent ? 'does not contain' : 'contains'} "${m.contains}"` : 'equals' in m ? 'equals the expected value' : 'subset' in m ? 'holds the expected entries' : `is ${m.numeric}`;
  return `after the episode, ${item.tool}(${JSON.stringify(item.arguments)}) ${what}`;
}

/** Run each check against the episode's server (before it is stopped). A check whose call fails, fails. */
export async function runStateChecks(items: readonly StateItem[], connection: McpConnection, limits: McpCallLimits): Promise<EnvCheck['checks']> {
  const checks: EnvCheck['checks'] = [];
  for (const item of items) {
    const outcome = await connection.call(item.tool, item.arguments as { [key: string]: JsonValue }, limits);
    if (outcome.isError) {
      checks.push({ name: describe(item), passed: false, detail: `the check's own call failed: ${outcome.text.slice(0, 300)}` });
      continue;
    }
    const { passed, detail } = matchState(item, outcome.text);
    checks.push({ name: describe(item), passed, ...(detail ? { detail } : {}) });
  }
  return checks;
}

/** The state items a task file put on a task (kept in its meta: the transcript checklist cannot score them). */
export function taskStateItems(task: Task): StateItem[] {
  const raw = task.meta?.state;
  if (!Array.isArray(raw)) return [];
  return raw.map((item) => STATE_ITEM_SCHEMA.parse(item));
}

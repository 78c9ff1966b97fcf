/**
 * The checklist verifier (algorithms.md, "Rewards that need no environment").
 *
 * One scorer for real and rehearsed rollouts: it reads only the transcript (calls made, final
 * answer, messages sent), never the environment. Score = Σ weights of passed items / Σ weights;
 * any tool-format error in the episode scores 0, with the per-item breakdown still reported.
 *
 * `nl-assertion` items (requirements in words, for an LLM judge we do not run) are listed as unchecked
 * and left out of both sums. A checklist with no checkable weight at all scores 0 and is marked
 * `unchecked`: its reward must be a number, and a constant 0 gives every rollout of the task the same
 * reward, so the task teaches nothing, instead of paying 1 for doing nothing (an empty checklist's
 * 0 / 0 would have had to be read as full marks, and a no-op "Done." collected it).
 */
import type { ChecklistItem, ChecklistItemResult, ChecklistResult, EpisodeTranscript, JsonValue, ToolCall } from './types';

export class ChecklistError extends Error {
  override name = 'ChecklistError';
}

/**
 * Calls one act may make and still earn checklist credit. The parser takes up to 16 calls in an
 * act and a `call` item passes when any call matches, so without a budget spraying guesses pays.
 * Rule: an act with more calls than the budget earns nothing: none of its calls can pass a `call`
 * item (they still fail `no-call` items). The budget never falls below the checklist's number of
 * `call` items, as a task asking for N calls may rightly make them in one act (BFCL's parallel
 * items ask for up to 8 in their single act); every other built-in env's gold replay makes one
 * call per act, so 4 leaves room for a few look-ups in parallel and little for a lottery.
 */
export const DEFAULT_CALL_BUDGET = 4;

export interface ChecklistOptions {
  /** See DEFAULT_CALL_BUDGET. */
  callBudget?: number;
}

/** Lower-case, trim, collapse whitespace, drop commas and surrounding quotes / a final full stop. */
export function normaliseText(s: string): string {
  return s
    .toLowerCase()
    .replace(/,/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'`]+|["'`]+$/g, '')
    .replace(/\.$/, '')
    .trim();
}

/** A number written in text, tolerating a currency sign, thousands commas and spaces. */
export function parseNumber(s: string): number | null {
  const cleaned = s
    .trim()
    .replace(/[$€£,\s]/g, '')
    .replace(/\.$/, '');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cleaned)) return null;
  const n = Number(cleaned);
  return Number.isFinite(n) ? n : null;
}

/**
 * Argument equality after normalisation: strings compare by `normaliseText`, a numeric string
 * equals the number it writes, arrays compare in order, objects key by key.
 */
export function argsEqual(actual: JsonValue | undefined, expected: JsonValue): boolean {
  if (actual === undefined) return false;
  if (typeof expected === 'number' || typeof actual === 'number') {
    const a = typeof actual === 'number' ? actual : typeof actual === 'string' ? parseNumber(actual) : null;
    const e = typeof expected === 'number' ? expected : typeof expected === 'string' ? parseNumber(expected) : null;
    return a !== null && e !== null && Math.abs(a - e) <= 1e-9 * Math.max(1, Math.abs(e));
  }
  if (typeof expected === 'string') return typeof actual === 'string' && normaliseText(actual) === normaliseText(expected);
  if (expected === null || typeof expected === 'boolean') return actual === expected;
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => argsEqual(actual[i], e));
  }
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  return [...keys].every((k) => k in expected && argsEqual(actual[k], expected[k]));
}

/** Does this call have the name and every constrained argument? */
export function callMatches(call: ToolCall, name: string, args?: { [key: string]: JsonValue }): boolean {
  if (call.name !== name) return false;
  if (!args) return true;
  return Object.entries(args).every(([k, v]) => argsEqual(call.arguments[k], v));
}

function splitSet(s: string): string[] {
  return s
    .split(/,|;|\n|\band\b/i)
    .map(normaliseText)
    .filter((x) => x.length > 0);
}

function answerMatches(answer: string, expected: JsonValue, item: Extract<ChecklistItem, { kind: 'answer' }>): boolean {
  const mode = item.match ?? 'normalised';
  switch (mode) {
    case 'exact':
      return answer.trim() === String(expected);
    case 'numeric': {
      const a = parseNumber(answer);
      const e = typeof expected === 'number' ? expected : parseNumber(String(expected));
      return a !== null && e !== null && Math.abs(a - e) <= (item.tolerance ?? 1e-6);
    }
    case 'set': {
      const want = new Set((Array.isArray(expected) ? expected : splitSet(String(expected))).map((x) => normaliseText(String(x))));
      const got = new Set(splitSet(answer));
      return want.size === got.size && [...want].every((x) => got.has(x));
    }
    case 'normalised':
      return normaliseText(answer) === normaliseText(String(expected));
  }
}

/** tau2's COMMUNICATE rule: the text appears in some message, case-insensitive, commas removed. */
export function communicated(messages: readonly string[], text: string): boolean {
  const needle = text.toLowerCase().replace(/,/g, '');
  return messages.some((m) => m.toLowerCase().replace(/,/g, '').includes(needle));
}

function fmtArgs(args?: { [key: string]: JsonValue }): string {
  if (!args || Object.keys(args).length === 0) return '';
  return ` with ${Object.entries(args)
    .map(([k, v]) => `${k} = ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ')}`;
}

/** A human-readable line for an item, used when the task did not write one. */
export function describeItem(item: ChecklistItem): string {
  if (item.description) return item.description;
  switch (item.kind) {
    case 'call':
      return `called ${item.name}${fmtArgs(item.args)}`;
    case 'no-call':
      return `did not call ${item.name}${fmtArgs(item.args)}`;
    case 'answer':
      return `final answer ${item.match === 'set' ? 'is the set' : 'equals'} ${item.expected.map((e) => JSON.stringify(e)).join(' or ')}`;
    case 'communicate':
      return `told the user "${item.text}"`;
    case 'nl-assertion':
      return item.text;
  }
}

/** Why an `nl-assertion` item is neither passed nor failed, as the breakdown says it. */
export const NL_ASSERTION_UNCHECKED = 'unchecked: needs an LLM judge (not in the score)';

/** The calls that may earn credit, and those voided by an act over the call budget. */
interface CallBudget {
  budget: number;
  credited: ToolCall[];
  overBudget: Array<{ call: ToolCall; actCalls: number }>;
}

function applyBudget(items: readonly ChecklistItem[], t: EpisodeTranscript, opts: ChecklistOptions): CallBudget {
  const knob = opts.callBudget ?? DEFAULT_CALL_BUDGET;
  if (!Number.isInteger(knob) || knob < 1) throw new ChecklistError(`call budget must be a whole number >= 1, got ${knob}`);
  const budget = Math.max(knob, items.filter((it) => it.kind === 'call' && it.weight > 0).length);
  const actOf = (i: number) => t.callActs?.[i] ?? -1 - i;
  const sizes = new Map<number, number>();
  t.calls.forEach((_, i) => sizes.set(actOf(i), (sizes.get(actOf(i)) ?? 0) + 1));
  const out: CallBudget = { budget, credited: [], overBudget: [] };
  t.calls.forEach((call, i) => {
    const actCalls = sizes.get(actOf(i))!;
    if (actCalls <= budget) out.credited.push(call);
    else out.overBudget.push({ call, actCalls });
  });
  return out;
}

function evaluate(item: ChecklistItem, t: EpisodeTranscript, b: CallBudget): { passed: boolean; detail?: string } {
  switch (item.kind) {
    case 'call': {
      if (b.credited.some((c) => callMatches(c, item.name, item.args))) return { passed: true };
      const over = b.overBudget.find((o) => callMatches(o.call, item.name, item.args));
      if (over) return { passed: false, detail: `${item.name} matched only in an act of ${over.actCalls} calls, over the budget of ${b.budget}` };
      const sameName = t.calls.filter((c) => c.name === item.name);
      return {
        passed: false,
        detail: sameName.length ? `${item.name} called with ${JSON.stringify(sameName[0].arguments)}` : `${item.name} never called`,
      };
    }
    case 'no-call': {
      const hit = t.calls.find((c) => callMatches(c, item.name, item.args));
      return hit ? { passed: false, detail: `${item.name} called with ${JSON.stringify(hit.arguments)}` } : { passed: true };
    }
    case 'answer': {
      if (t.answer === null) return { passed: false, detail: 'no final answer' };
      const passed = item.expected.some((e) => answerMatches(t.answer as string, e, item));
      return passed ? { passed } : { passed, detail: `answered ${JSON.stringify(t.answer.slice(0, 200))}` };
    }
    case 'communicate': {
      const messages = t.answer !== null && !t.messages.includes(t.answer) ? [...t.messages, t.answer] : t.messages;
      return communicated(messages, item.text) ? { passed: true } : { passed: false, detail: 'not found in any message' };
    }
    case 'nl-assertion':
      return { passed: false, detail: NL_ASSERTION_UNCHECKED };
  }
}

const checkable = (item: Pick<ChecklistItem, 'kind'>) => item.kind !== 'nl-assertion';

/**
 * Check a checklist is scorable: at least one item, weights finite and non-negative, and some checkable
 * item with a positive weight, or else only NL assertions (then it scores as unchecked).
 */
export function validateChecklist(items: readonly ChecklistItem[]): void {
  if (!Array.isArray(items) || items.length === 0) throw new ChecklistError('checklist is empty');
  items.forEach((it, i) => {
    if (!Number.isFinite(it.weight) || it.weight < 0)
      throw new ChecklistError(`checklist item ${i} has weight ${it.weight}; weights must be finite and >= 0`);
  });
  if (!items.some((it) => it.weight > 0 || !checkable(it))) throw new ChecklistError('checklist has no item with a positive weight');
}

export function scoreChecklist(items: readonly ChecklistItem[], transcript: EpisodeTranscript, opts: ChecklistOptions = {}): ChecklistResult {
  validateChecklist(items);
  const budget = applyBudget(items, transcript, opts);
  const results: ChecklistItemResult[] = items.map((item, index) => {
    const { passed, detail } = evaluate(item, transcript, budget);
    const unchecked = checkable(item) ? {} : { unchecked: true as const };
    return { index, kind: item.kind, description: describeItem(item), weight: item.weight, passed, ...(detail ? { detail } : {}), ...unchecked };
  });
  const scored = results.filter((r) => r.unchecked === undefined);
  const total = scored.reduce((s, r) => s + r.weight, 0);
  const got = scored.reduce((s, r) => s + (r.passed ? r.weight : 0), 0);
  const formatError = transcript.formatErrors > 0;
  if (total === 0) return { score: 0, items: results, formatError, unchecked: true };
  return { score: formatError ? 0 : got / total, items: results, formatError };
}

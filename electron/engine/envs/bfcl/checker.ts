/**
 * The BFCL single-turn checker, written from the benchmark's stated rules: the function name,
 * required parameters present, no parameters outside the possible answer, types as the function
 * doc declares them, each value among the allowed ones (strings compared after normalising),
 * `""` in an allowed list meaning the parameter may be left out, parallel calls matched in any
 * order, and irrelevance passing only when no call is made.
 */
import type { JsonValue, ToolCall } from '../types';
import type { BfclFunction, BfclSchema, GroundTruthCall } from './data';

export interface BfclVerdict {
  passed: boolean;
  detail: string;
}

/** Drop spaces and `,./-_*^`, lower-case: "New York, NY" ≡ "newyorkny". */
export function normaliseBfclString(s: string): string {
  return s.replace(/[ ,./\-_*^]/g, '').toLowerCase();
}

function isObject(v: unknown): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Does `actual` have the declared BFCL type? Python rules: an int is a valid float, a bool is not a number. */
export function hasBfclType(actual: JsonValue, schema: BfclSchema | undefined): boolean {
  const type = schema?.type;
  switch (type) {
    case undefined:
    case 'any':
      return true;
    case 'integer':
    case 'int':
      return typeof actual === 'number' && Number.isInteger(actual);
    case 'float':
    case 'number':
      return typeof actual === 'number';
    case 'string':
    case 'str':
      return typeof actual === 'string';
    case 'boolean':
    case 'bool':
      return typeof actual === 'boolean';
    case 'array':
    case 'list':
    case 'tuple':
      return Array.isArray(actual) && (!schema?.items || actual.every((x) => hasBfclType(x, schema.items)));
    case 'dict':
    case 'object':
      return isObject(actual);
    default:
      return true;
  }
}

/**
 * One allowed entry against a value. A dict entry is itself a possible answer (key → allowed
 * list); a list entry matches element-wise, its dict elements again possible answers.
 */
function matchesEntry(actual: JsonValue, entry: JsonValue): boolean {
  if (isObject(entry)) {
    if (!isObject(actual)) return false;
    if (Object.keys(actual).some((k) => !(k in entry))) return false;
    return Object.entries(entry).every(([k, allowed]) => {
      const list = Array.isArray(allowed) ? allowed : [allowed];
      return k in actual ? matchesAllowed(actual[k], list) : list.includes('');
    });
  }
  if (Array.isArray(entry)) {
    return Array.isArray(actual) && actual.length === entry.length && entry.every((e, i) => matchesEntry(actual[i], e));
  }
  if (typeof entry === 'string') return typeof actual === 'string' && normaliseBfclString(actual) === normaliseBfclString(entry);
  if (typeof entry === 'number') return typeof actual === 'number' && actual === entry;
  return actual === entry;
}

/**
 * Is the value among the allowed ones? An empty allowed list occurs for a few array parameters
 * in live_simple and is read as "the empty list".
 */
export function matchesAllowed(actual: JsonValue, allowed: readonly JsonValue[]): boolean {
  if (allowed.length === 0) return Array.isArray(actual) && actual.length === 0;
  return allowed.some((entry) => entry !== '' && matchesEntry(actual, entry));
}

/** Why `call` does not satisfy `expected`, or null when it does. */
export function callProblem(call: ToolCall, expected: GroundTruthCall, functions: readonly BfclFunction[]): string | null {
  if (call.name !== expected.name) return `called ${call.name}, expected ${expected.name}`;
  const doc = functions.find((f) => f.name === call.name);
  if (!doc) return `${call.name} is not one of the offered functions`;
  const args = call.arguments ?? {};
  for (const req of doc.parameters.required ?? []) {
    if (!(req in args)) return `${call.name}: required parameter "${req}" missing`;
  }
  for (const [param, value] of Object.entries(args)) {
    const allowed = expected.params[param];
    if (!allowed) return `${call.name}: unexpected parameter "${param}"`;
    // None is how BFCL lists "may be null"; it has no declared type to check.
    if (value === null && allowed.includes(null)) continue;
    const schema = doc.parameters.properties?.[param];
    if (!hasBfclType(value, schema)) return `${call.name}: parameter "${param}" should be of type ${schema?.type}, got ${JSON.stringify(value)}`;
    if (!matchesAllowed(value, allowed)) return `${call.name}: parameter "${param}" = ${JSON.stringify(value)} is not among the allowed values ${JSON.stringify(allowed)}`;
  }
  for (const [param, allowed] of Object.entries(expected.params)) {
    if (!(param in args) && !allowed.includes('')) return `${call.name}: parameter "${param}" missing`;
  }
  return null;
}

/** Unordered one-to-one matching of calls to expected calls (backtracking; lists are short). */
function findMatching(calls: readonly ToolCall[], expected: readonly GroundTruthCall[], functions: readonly BfclFunction[]): boolean {
  const ok = expected.map((e) => calls.map((c) => callProblem(c, e, functions) === null));
  const used = new Array<boolean>(calls.length).fill(false);
  const assign = (i: number): boolean => {
    if (i === expected.length) return true;
    for (let j = 0; j < calls.length; j++) {
      if (used[j] || !ok[i][j]) continue;
      used[j] = true;
      if (assign(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  return assign(0);
}

export function checkBfcl(calls: readonly ToolCall[], expected: readonly GroundTruthCall[], functions: readonly BfclFunction[]): BfclVerdict {
  if (expected.length === 0) {
    return calls.length === 0
      ? { passed: true, detail: 'no call made, as none of the functions fit' }
      : { passed: false, detail: `made ${calls.length} call(s) although none of the functions fit` };
  }
  if (calls.length !== expected.length) return { passed: false, detail: `made ${calls.length} call(s), expected ${expected.length}` };
  if (expected.length === 1) {
    const problem = callProblem(calls[0], expected[0], functions);
    return problem ? { passed: false, detail: problem } : { passed: true, detail: 'the call matches' };
  }
  if (findMatching(calls, expected, functions)) return { passed: true, detail: 'every expected call is matched' };
  // Name the first expected call nothing satisfies, for a useful message.
  const unmatched = expected.find((e) => calls.every((c) => callProblem(c, e, functions) !== null))!;
  const nearest = calls.find((c) => c.name === unmatched?.name);
  const why = nearest ? callProblem(nearest, unmatched, functions) : `no call to ${unmatched?.name}`;
  return { passed: false, detail: `calls do not match one-to-one: ${why ?? 'calls overlap'}` };
}

/**
 * The oracle's value for an allowed list: the first allowed entry, skipping `""` (leave it out)
 * when the parameter is required and entries the declared type rules out; dict entries are
 * resolved the same way. Undefined means "leave the parameter out".
 */
export function oracleValue(allowed: readonly JsonValue[], schema?: BfclSchema, required = false): JsonValue | undefined {
  if (allowed.length === 0) return [];
  let fallback: JsonValue | undefined;
  for (const entry of allowed) {
    if (entry === '') {
      if (required) continue;
      return undefined;
    }
    const value = resolveEntry(entry);
    // null ("None") only when nothing else is allowed: typed tool schemas reject it.
    if (value === null) fallback = null;
    else if (hasBfclType(value, schema)) return value;
  }
  return fallback;
}

function resolveEntry(entry: JsonValue): JsonValue {
  if (isObject(entry)) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, allowed] of Object.entries(entry)) {
      const v = oracleValue(Array.isArray(allowed) ? allowed : [allowed]);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  if (Array.isArray(entry)) return entry.map(resolveEntry);
  return entry;
}

/** The oracle's calls: one per expected call, each parameter at its oracle value. */
export function oracleCalls(expected: readonly GroundTruthCall[], functions: readonly BfclFunction[]): ToolCall[] {
  return expected.map((e) => {
    const doc = functions.find((f) => f.name === e.name);
    const required = new Set(doc?.parameters.required ?? []);
    const args: { [key: string]: JsonValue } = {};
    for (const [param, allowed] of Object.entries(e.params)) {
      const v = oracleValue(allowed, doc?.parameters.properties?.[param], required.has(param));
      if (v !== undefined) args[param] = v;
    }
    return { name: e.name, arguments: args };
  });
}

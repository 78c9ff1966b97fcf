/**
 * The BFCL single-turn AST checker, written from the rules of BFCL's
 * `bfcl_eval/eval_checker/ast_eval/ast_checker.py` (Python categories):
 * - the function name, every required parameter present, nothing outside both the doc and the
 *   possible answer;
 * - types as Python sees them through BFCL's type map (`any` is `str`); an int is accepted for a
 *   float (converted), a float never for an integer; a value whose type is not the declared one
 *   still passes when it has the type of the possible answer (BFCL's "variable" case) and is then
 *   compared as is;
 * - strings compared after `standardize_string` (drop spaces and `,./-_*^`, lower-case, `'` → `"`),
 *   so `""` matches the `""` that marks an optional parameter; lists element-wise with strings
 *   standardised; dicts key by key; an empty allowed list matches nothing;
 * - parallel calls matched greedily: each expected call, in order, takes the first unused call
 *   that satisfies it (no backtracking); irrelevance passes only when no call is made.
 *
 * JSON numbers carry no int/float distinction, so an integral number reads as an int unless the
 * call says its literal was a float (`BfclCall.floats`, from `floatLiteralPaths`).
 */
import type { JsonValue, ToolCall } from '../types';
import type { BfclFunction, BfclSchema, GroundTruthCall } from './data';

export interface BfclVerdict {
  passed: boolean;
  detail: string;
}

/**
 * A call to check. `floats` lists the argument paths ("count", "sizes/1", "box/w") that the model
 * wrote as float literals (`5.0`): JSON.parse makes them integral numbers, Python keeps them floats.
 */
export type BfclCall = ToolCall & { floats?: ReadonlySet<string> };

type PyType = 'str' | 'int' | 'float' | 'bool' | 'list' | 'dict' | 'NoneType';

/** BFCL's PYTHON_TYPE_MAPPING: declared type word → the Python type a value must have. */
const PY_TYPE: Record<string, PyType> = {
  string: 'str',
  integer: 'int',
  float: 'float',
  boolean: 'bool',
  array: 'list',
  tuple: 'list',
  dict: 'dict',
  any: 'str',
};

const NESTED = new Set(['array', 'tuple']);

function isObject(v: unknown): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pyTypeOf(v: JsonValue, float = false): PyType {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'number') return float || !Number.isInteger(v) ? 'float' : 'int';
  return Array.isArray(v) ? 'list' : 'dict';
}

/** Python `==` on decoded JSON: numbers and bools compare by value (True == 1), containers deeply. */
function pyEq(a: JsonValue, b: JsonValue): boolean {
  const numeric = (x: JsonValue): x is number | boolean => typeof x === 'number' || typeof x === 'boolean';
  if (numeric(a) && numeric(b)) return Number(a) === Number(b);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEq(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && pyEq(a[k], b[k]));
  }
  return a === b;
}

const pyIn = (v: JsonValue, list: readonly JsonValue[]): boolean => list.some((x) => pyEq(v, x));

/** BFCL's `standardize_string`: drop spaces and `,./-_*^`, lower-case, then `'` → `"`. */
export function normaliseBfclString(s: string): string {
  return s.replace(/[ ,./\-_*^]/g, '').toLowerCase().replace(/'/g, '"');
}

const standardise = (v: JsonValue): JsonValue => (typeof v === 'string' ? normaliseBfclString(v) : v);

/** The Python type of the first allowed entry other than `""` (BFCL's get_possible_answer_type). */
function answerType(allowed: readonly JsonValue[]): PyType | null {
  const first = allowed.find((a) => a !== '');
  return first === undefined ? null : pyTypeOf(first);
}

interface TypeResult {
  valid: boolean;
  variable: boolean;
}

/** Whether the literal at an argument path was a float (see `BfclCall.floats`). */
type FloatAt = (path: string) => boolean;

/** BFCL's type_checker: the declared type, one level of element types, or the answer's own type. */
function typeCheck(value: JsonValue, path: string, floatAt: FloatAt, allowed: readonly JsonValue[], expected: PyType, nested: PyType | null): TypeResult {
  const aType = answerType(allowed);
  const variable = aType !== null && aType !== expected;
  const vType = pyTypeOf(value, floatAt(path));
  if (vType === expected) {
    if (nested === null) return { valid: true, variable };
    // Valid when, for some allowed entry, every element has the element type (or that entry's
    // element type); a non-list entry such as "" passes trivially, as in BFCL.
    const items = value as JsonValue[];
    for (const entry of allowed) {
      const ok = !Array.isArray(entry) || items.every((x, k) => typeCheck(x, `${path}/${k}`, floatAt, entry, nested, null).valid);
      if (ok) return { valid: true, variable };
    }
    return { valid: false, variable };
  }
  if (aType !== null && vType === aType) return { valid: true, variable: true };
  return { valid: false, variable };
}

function stringProblem(value: string, allowed: readonly JsonValue[]): boolean {
  return !allowed.some((a) => typeof a === 'string' && normaliseBfclString(a) === normaliseBfclString(value));
}

function listProblem(value: JsonValue[], allowed: readonly JsonValue[]): boolean {
  const got = value.map(standardise);
  // A string entry such as "" iterates as characters in BFCL: "" becomes [], so [] then matches.
  const entries = allowed.map((a) => (Array.isArray(a) ? a.map(standardise) : typeof a === 'string' ? [...a].map(standardise) : []));
  return !entries.some((e) => pyEq(got, e));
}

function dictMatches(value: { [key: string]: JsonValue }, entry: JsonValue): boolean {
  if (!isObject(entry)) return false;
  for (const [k, v] of Object.entries(value)) {
    if (!Object.hasOwn(entry, k)) return false;
    const list = Array.isArray(entry[k]) ? (entry[k] as JsonValue[]) : [entry[k]];
    if (!pyIn(standardise(v), list.map(standardise))) return false;
  }
  return Object.entries(entry).every(([k, list]) => Object.hasOwn(value, k) || (Array.isArray(list) && list.includes('')));
}

function dictProblem(value: JsonValue, allowed: readonly JsonValue[]): boolean {
  return !isObject(value) || !allowed.some((entry) => entry !== '' && dictMatches(value, entry));
}

function listOfDictsProblem(value: JsonValue[], allowed: readonly JsonValue[]): boolean {
  return !allowed.some((entry) => {
    const dicts = Array.isArray(entry) ? entry : typeof entry === 'string' ? [...entry] : [];
    return dicts.length === value.length && value.every((v, i) => isObject(v) && dictMatches(v, dicts[i]));
  });
}

/**
 * Is `value` among the allowed values, by BFCL's value rules for its shape (string, list, list of
 * dicts, dict, or plain `==`)? Types are not checked here.
 */
export function matchesAllowed(value: JsonValue, allowed: readonly JsonValue[]): boolean {
  if (typeof value === 'string') return !stringProblem(value, allowed);
  if (Array.isArray(value)) return value.length > 0 && value.every(isObject) ? !listOfDictsProblem(value, allowed) : !listProblem(value, allowed);
  if (isObject(value)) return !dictProblem(value, allowed);
  return pyIn(value, allowed);
}

/** Does `value` have the declared type, as BFCL accepts it (an int for a float; `any` is a string)? */
export function hasBfclType(value: JsonValue, schema: BfclSchema | undefined): boolean {
  if (schema?.type === undefined) return true;
  const expected = PY_TYPE[schema.type];
  if (expected === undefined) return false;
  const vType = pyTypeOf(value);
  if (expected === 'float' && vType === 'int') return true;
  if (vType !== expected) return false;
  const nested = NESTED.has(schema.type) ? schema.items : undefined;
  return !nested || (value as JsonValue[]).every((x) => hasBfclType(x, nested));
}

const show = (v: JsonValue): string => JSON.stringify(v);

/** Why `call` does not satisfy `expected` (BFCL's simple_function_checker), or null when it does. */
export function callProblem(call: BfclCall, expected: GroundTruthCall, functions: readonly BfclFunction[]): string | null {
  if (call.name !== expected.name) return `called ${call.name}, expected ${expected.name}`;
  const doc = functions.find((f) => f.name === expected.name);
  if (!doc) return `${call.name} is not one of the offered functions`;
  const props = doc.parameters.properties ?? {};
  const args = call.arguments ?? {};
  for (const req of doc.parameters.required ?? []) {
    if (!Object.hasOwn(args, req)) return `${call.name}: required parameter "${req}" missing`;
  }
  for (const [param, raw] of Object.entries(args)) {
    const allowed = Object.hasOwn(expected.params, param) ? expected.params[param] : undefined;
    if (!Object.hasOwn(props, param) || !allowed) return `${call.name}: unexpected parameter "${param}"`;
    const declared = String(props[param].type);
    const pyType = PY_TYPE[declared];
    if (!pyType) return `${call.name}: parameter "${param}" has type "${declared}", which BFCL's Python checker does not know`;
    const nestedWord = NESTED.has(declared) ? props[param].items?.type : undefined;
    const nested = nestedWord === undefined ? null : (PY_TYPE[nestedWord] ?? null);
    // Python's int → float promotion, for a float parameter's own value only (not list elements).
    const promoted = declared === 'float' && typeof raw === 'number';
    const floatAt: FloatAt = (path) => (promoted && path === param) || (call.floats?.has(path) ?? false);
    const value = raw;
    const t = typeCheck(value, param, floatAt, allowed, pyType, nested);
    if (!t.valid) {
      return `${call.name}: parameter "${param}" should be of type ${declared}${nested ? ` of ${nestedWord}` : ''}, got ${pyTypeOf(value, floatAt(param))} ${show(value)}`;
    }
    const notAllowed = `${call.name}: parameter "${param}" = ${show(value)} is not among the allowed values ${show(allowed)}`;
    if (!t.variable) {
      if (pyType === 'dict') {
        if (dictProblem(value, allowed)) return notAllowed;
        continue;
      }
      if (pyType === 'list' && nested === 'dict') {
        if (listOfDictsProblem(value as JsonValue[], allowed)) return notAllowed;
        continue;
      }
      if (pyType === 'str') {
        if (stringProblem(value as string, allowed)) return notAllowed;
        continue;
      }
      if (pyType === 'list') {
        if (listProblem(value as JsonValue[], allowed)) return notAllowed;
        continue;
      }
    }
    if (!pyIn(value, allowed)) return notAllowed;
  }
  for (const [param, allowed] of Object.entries(expected.params)) {
    if (!Object.hasOwn(args, param) && !allowed.includes('')) return `${call.name}: parameter "${param}" missing`;
  }
  return null;
}

export function checkBfcl(calls: readonly BfclCall[], expected: readonly GroundTruthCall[], functions: readonly BfclFunction[]): BfclVerdict {
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
  // BFCL's parallel_function_checker_no_order: greedy, first unused call that fits each expected call.
  const used = new Set<number>();
  for (const [i, e] of expected.entries()) {
    const j = calls.findIndex((c, k) => !used.has(k) && callProblem(c, e, functions) === null);
    if (j < 0) {
      const nearest = calls.find((c, k) => !used.has(k) && c.name === e.name);
      const why = nearest ? callProblem(nearest, e, functions) : `no call to ${e.name}`;
      return { passed: false, detail: `no unused call matches expected call ${i + 1} (${e.name}): ${why}` };
    }
    used.add(j);
  }
  return { passed: true, detail: 'every expected call is matched' };
}

/**
 * The argument paths written as float literals in a JSON object text (`{"n": 5.0}` → {"n"}):
 * what `BfclCall.floats` needs, for whoever holds the raw text of a call's arguments.
 */
export function floatLiteralPaths(argumentsJson: string): Set<string> {
  const out = new Set<string>();
  let i = 0;
  const s = argumentsJson;
  const ws = (): void => {
    while (/\s/.test(s[i] ?? '')) i++;
  };
  const str = (): string => {
    const start = i;
    for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
    i++;
    return JSON.parse(s.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = s[i];
    if (c === '{') {
      i++;
      for (ws(); s[i] !== '}' && i < s.length; ws()) {
        const key = str();
        ws();
        i++; // ':'
        value(path ? `${path}/${key}` : key);
        ws();
        if (s[i] === ',') i++;
      }
      i++;
    } else if (c === '[') {
      i++;
      ws();
      for (let k = 0; s[i] !== ']' && i < s.length; k++, ws()) {
        value(`${path}/${k}`);
        ws();
        if (s[i] === ',') i++;
      }
      i++;
    } else if (c === '"') {
      str();
    } else {
      const m = /^-?\d+(\.\d+)?([eE][-+]?\d+)?|^[a-z]+/.exec(s.slice(i));
      if (!m) throw new Error(`not JSON at ${i}`);
      if (m[1] !== undefined || m[2] !== undefined) out.add(path);
      i += m[0].length;
    }
  };
  value('');
  return out;
}

/**
 * The oracle's value for an allowed list: the first allowed entry, skipping `""` (leave it out)
 * when the parameter is required and entries the declared type rules out; dict entries are
 * resolved the same way. Undefined means "leave the parameter out" (or, for an empty allowed
 * list, that no value can match).
 */
export function oracleValue(allowed: readonly JsonValue[], schema?: BfclSchema, required = false): JsonValue | undefined {
  let fallback: JsonValue | undefined;
  for (const entry of allowed) {
    if (entry === '') {
      if (required) continue;
      return undefined;
    }
    const value = resolveEntry(entry);
    // null ("None") only when nothing else is allowed: typed tool schemas reject it.
    if (value === null) fallback = null;
    else if (!schema || hasBfclType(value, schema)) return value;
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
      // A few answers list a parameter their doc lacks; BFCL rejects any call that sends it.
      if (!doc?.parameters.properties || !Object.hasOwn(doc.parameters.properties, param)) continue;
      const v = oracleValue(allowed, doc?.parameters.properties?.[param], required.has(param));
      if (v !== undefined) args[param] = v;
    }
    return { name: e.name, arguments: args };
  });
}

/**
 * JSON Schema validation of tool arguments, with errors worded the way a Python tool server
 * (jsonschema / tau2-style) words them, e.g. `'order_id' is a required property`.
 *
 * Each distinct schema is compiled once and cached (by spec object and by schema text), so
 * validating a call is a lookup plus a run of the compiled function.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema, JsonValue, ToolSpec } from './types';

// verbose: the failing value is kept on each error so messages can quote it.
// strict: false — benchmark schemas carry keywords ajv's strict mode rejects (`default: null`
// on a string property, `title`), and a user's MCP server may send anything draft-07-like.
// code.optimize off: ajv's pass over the generated code was a third of each compile, and a few
// thousand schemas are compiled for every run of a few calls each (BFCL: 4.8 → 3.1 s of CPU).
const ajv = new Ajv({ allErrors: false, strict: false, validateFormats: false, verbose: true, code: { optimize: false } });

interface CompiledTool {
  validate: ValidateFunction | null;
  /** Why the schema could not be compiled (the call is then only checked to be an object). */
  problem: string | null;
}

const cache = new WeakMap<ToolSpec, CompiledTool>();
/**
 * Compiled schemas by their JSON text: BFCL's 3,450 tasks carry 8,458 function docs but only 2,985
 * distinct schemas, and compiling each spec object anew made ajv 75 % of building the env (7 s of
 * CPU, paid by every `envs list`).
 */
const byText = new Map<string, CompiledTool>();

function compile(spec: ToolSpec): CompiledTool {
  const hit = cache.get(spec);
  if (hit) return hit;
  const schema = normaliseSchema(spec.parameters);
  const text = JSON.stringify(schema);
  let compiled = byText.get(text);
  if (!compiled) {
    try {
      compiled = { validate: ajv.compile(schema), problem: null };
    } catch (err) {
      compiled = { validate: null, problem: err instanceof Error ? err.message : String(err) };
    }
    byText.set(text, compiled);
  }
  cache.set(spec, compiled);
  return compiled;
}

/** A tool's parameters must describe an object; a bare `{}` means "no arguments". */
function normaliseSchema(schema: JsonSchema | undefined): JsonSchema {
  if (!schema || typeof schema !== 'object') return { type: 'object' };
  return schema;
}

/** Why this tool's schema cannot be used for validation, or null if it can. */
export function toolSchemaProblem(spec: ToolSpec): string | null {
  return compile(spec).problem;
}

/**
 * Validate one call's arguments against its tool's schema.
 * Returns null when valid, else the first error worded like a Python server's.
 */
export function validateToolArguments(spec: ToolSpec, args: { [key: string]: JsonValue }): string | null {
  const { validate } = compile(spec);
  if (!validate) return null;
  if (validate(args)) return null;
  const first = validate.errors?.[0];
  return first ? describeError(first) : 'arguments do not match the schema';
}

/** Python repr of a JSON value, as jsonschema prints instances in its messages. */
export function pyRepr(value: unknown, budget = 80): string {
  const text = reprInner(value);
  return text.length > budget ? `${text.slice(0, budget)}...` : text;
}

function reprInner(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map(reprInner).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as object).map(([k, v]) => `${reprInner(k)}: ${reprInner(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return String(value);
}

function pyTypeName(t: unknown): string {
  const names: Record<string, string> = {
    string: 'string',
    integer: 'integer',
    number: 'number',
    boolean: 'boolean',
    object: 'object',
    array: 'array',
    null: 'null',
  };
  return Array.isArray(t) ? t.map((x) => `'${names[String(x)] ?? String(x)}'`).join(', ') : `'${names[String(t)] ?? String(t)}'`;
}

function describeError(e: ErrorObject): string {
  const where = e.instancePath ? ` at ${e.instancePath}` : '';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${pyRepr(p.missingProperty)} is a required property${where}`;
    case 'type':
      return `${pyRepr(e.data)} is not of type ${pyTypeName(p.type)}${where}`;
    case 'enum':
      return `${pyRepr(e.data)} is not one of ${pyRepr(p.allowedValues, 200)}${where}`;
    case 'const':
      return `${pyRepr(p.allowedValue)} was expected${where}`;
    case 'additionalProperties':
      return `Additional properties are not allowed (${pyRepr(p.additionalProperty)} was unexpected)${where}`;
    case 'minItems':
      return `${pyRepr(e.data)} should be non-empty${where}`;
    default:
      return `${e.message ?? 'is invalid'}${where}`;
  }
}

/** BFCL function docs (Python-flavoured types) as OpenAI-form tools with JSON Schema parameters. */
import type { JsonSchema, ToolSpec } from '../types';
import type { BfclFunction, BfclSchema } from './data';

/**
 * BFCL's type words → JSON Schema types. `any` is a string, as BFCL's GORILLA_TO_OPENAPI shows it
 * to models and its checker reads it (`"any": str`).
 */
const TYPE_MAP: Record<string, string | null> = {
  dict: 'object',
  object: 'object',
  float: 'number',
  number: 'number',
  integer: 'integer',
  int: 'integer',
  string: 'string',
  str: 'string',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  tuple: 'array',
  any: 'string',
};

export function toJsonSchema(schema: BfclSchema): JsonSchema {
  const out: JsonSchema = {};
  const mapped = schema.type === undefined ? null : (TYPE_MAP[schema.type] ?? null);
  if (mapped) out.type = mapped;
  if (schema.description) out.description = schema.description;
  // BFCL puts an element enum on the array itself ("metrics": array, enum: [...]); JSON Schema wants it on items.
  const elementEnum = schema.enum && mapped === 'array';
  if (schema.enum && !elementEnum) out.enum = schema.enum;
  if (schema.default !== undefined) out.default = schema.default;
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, toJsonSchema(v)]));
  if (schema.items || elementEnum) out.items = { ...(schema.items ? toJsonSchema(schema.items) : {}), ...(elementEnum ? { enum: schema.enum } : {}) };
  if (schema.required && schema.required.length > 0) out.required = schema.required;
  return out;
}

export function toToolSpec(fn: BfclFunction): ToolSpec {
  const parameters = toJsonSchema(fn.parameters);
  return { name: fn.name, description: fn.description, parameters: { ...parameters, type: 'object' } };
}

/** The Environments console's pure parts: a starting skeleton from a tool's JSON Schema, and parsing what the person typed. */

type JsonSchema = { type?: unknown; properties?: Record<string, JsonSchema>; required?: unknown; default?: unknown; enum?: unknown[] };

function placeholder(schema: JsonSchema | undefined): unknown {
  if (!schema) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}

/** `{required args: placeholder}` so the person sees what the tool needs; optional ones are left out. */
export function argumentSkeleton(parameters: Record<string, unknown>): Record<string, unknown> {
  const schema = parameters as JsonSchema;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  return Object.fromEntries(required.map((name) => [name, placeholder(schema.properties?.[name])]));
}

export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; issue: string };

/** The arguments box must hold one JSON object; anything else gets a sentence, not a thrown error. */
export function parseToolArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, issue: `not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, issue: 'arguments must be a JSON object, e.g. {"order_id": "#W1"}' };
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * Tool plumbing shared by the tau2-style domains: schemas from tool_schemas.generated.json,
 * an error type for refusals a tool makes by design, and one function that executes a call the
 * way a tau2 server answers it (result as JSON, or `Error: <message>`).
 */
import { readFileSync } from 'node:fs';
import { dataPath } from '../data-dir';
import { validateToolArguments } from '../schema-validate';
import type { JsonValue, ToolCall, ToolSpec } from '../types';
import type { Db } from './db';

/** A refusal a tool makes by design ("Order not found"); shown to the agent as `Error: …`. */
export class ToolError extends Error {
  override name = 'ToolError';
}

export type ToolArgs = { [key: string]: JsonValue };
/** One tool over a forked DB. Returns the result (JSON-serialised for the agent) or throws ToolError. */
export type ToolImpl = (db: Db, args: ToolArgs) => JsonValue;

interface SchemaFile {
  [domain: string]: { agent_tools: Array<{ function: ToolSpec }>; user_tools: Array<{ function: ToolSpec }> };
}

let schemaFile: SchemaFile | null = null;

/** The agent (and optionally user) tool specs of a tau2 domain, in file order. */
export function loadTau2ToolSpecs(domain: string, opts: { userTools?: boolean } = {}): ToolSpec[] {
  schemaFile ??= JSON.parse(readFileSync(dataPath('tau2-bench', 'tool_schemas.generated.json'), 'utf8')) as SchemaFile;
  const entry = schemaFile[domain];
  if (!entry) throw new Error(`tool_schemas.generated.json has no domain '${domain}'`);
  const list = opts.userTools ? [...entry.agent_tools, ...entry.user_tools] : entry.agent_tools;
  return list.map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters }));
}

/** Outcome of executing one call: what the agent sees, and whether the call was well formed. */
export interface CallOutcome {
  observation: string;
  /** False for unknown tools and schema violations (format errors), true otherwise. */
  wellFormed: boolean;
}

/**
 * Execute one call against a DB. Unknown tools and bad arguments are format errors; a ToolError
 * is a normal, well-formed outcome (the agent asked for something the world refuses). Any other
 * exception is a bug in a tool, reported as an error observation rather than crashing the episode.
 */
export function executeCall(impls: Record<string, ToolImpl>, specs: readonly ToolSpec[], db: Db, call: ToolCall): CallOutcome {
  const spec = specs.find((s) => s.name === call.name);
  const impl = impls[call.name];
  if (!spec || !impl) return { observation: `Error: Tool '${call.name}' not found`, wellFormed: false };
  const problem = validateToolArguments(spec, call.arguments);
  if (problem) return { observation: `Error: invalid arguments for ${call.name}: ${problem}`, wellFormed: false };
  try {
    const result = impl(db, call.arguments);
    return { observation: typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null'), wellFormed: true };
  } catch (err) {
    if (err instanceof ToolError) return { observation: `Error: ${err.message}`, wellFormed: true };
    return { observation: `Error: internal tool failure in ${call.name}: ${err instanceof Error ? err.message : String(err)}`, wellFormed: true };
  }
}

/** Round to cents the way prices are stored (two decimals). */
export function roundCents(x: number): number {
  return Math.round((x + Number.EPSILON) * 100) / 100;
}

/**
 * The one tool-call grammar shared by every environment, rollout and demo:
 *
 *   action  := tool_call+ | answer
 *   tool_call := "<tool_call>" {"name": string, "arguments": object | json-string} "</tool_call>"
 *   answer  := "<answer>" text "</answer>"
 *
 * `parseAction` never throws. Anything that is not a valid action becomes
 * `{ kind: 'invalid', error }`, the error worded the way a real tool server would answer, so it
 * can be shown to the model as the observation. Input length, JSON nesting depth and the number
 * of calls are capped so hostile text costs bounded time.
 */
import { jsonTextDepth } from '../../../native-models/io/bounded-json';
import type { Action, JsonValue, ToolCall, ToolSpec } from './types';
import { validateToolArguments } from './schema-validate';

export const PARSER_LIMITS = {
  /** Longest action text parsed at all (characters). */
  maxChars: 32_000,
  /** Deepest JSON nesting accepted inside a tool call. */
  maxDepth: 32,
  /** Most tool calls in one action. */
  maxCalls: 16,
} as const;

type Block = { tag: 'tool_call' | 'answer'; body: string };

const TAG = /<(\/?)(tool_call|answer)>/g;

function invalid(error: string, raw: string): Action {
  return { kind: 'invalid', error, raw: raw.length > PARSER_LIMITS.maxChars ? raw.slice(0, PARSER_LIMITS.maxChars) : raw };
}

/**
 * Split the text into tagged blocks. Text outside the tags is ignored (a server treats it as
 * free content); a missing closing tag at the very end is tolerated because stop sequences
 * usually swallow it.
 */
function scanBlocks(text: string): Block[] | string {
  const blocks: Block[] = [];
  let open: { tag: Block['tag']; start: number } | null = null;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(text); m; m = TAG.exec(text)) {
    const closing = m[1] === '/';
    const tag = m[2] as Block['tag'];
    if (!closing) {
      if (open) return `Error: <${tag}> opened inside <${open.tag}>`;
      open = { tag, start: m.index + m[0].length };
    } else {
      if (!open || open.tag !== tag) return `Error: unexpected </${tag}>`;
      blocks.push({ tag, body: text.slice(open.start, m.index) });
      open = null;
    }
  }
  if (open) blocks.push({ tag: open.tag, body: text.slice(open.start) });
  return blocks;
}

function parseBoundedJson(text: string): { value: unknown } | { error: string } {
  if (jsonTextDepth(text, PARSER_LIMITS.maxDepth) > PARSER_LIMITS.maxDepth) return { error: `JSON nested deeper than ${PARSER_LIMITS.maxDepth} levels` };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

function isPlainObject(v: unknown): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseCall(body: string, tools: readonly ToolSpec[] | undefined): ToolCall | string {
  const source = body.trim();
  if (!source) return 'Error: empty <tool_call>';
  const parsed = parseBoundedJson(source);
  if ('error' in parsed) return `Error: could not parse tool call JSON: ${parsed.error}`;
  const obj = parsed.value;
  if (!isPlainObject(obj)) return 'Error: a tool call must be a JSON object with "name" and "arguments"';
  const name = obj.name;
  if (typeof name !== 'string' || !name.trim()) return `Error: tool call is missing "name"`;
  let args: unknown = obj.arguments ?? {};
  if (typeof args === 'string') {
    // OpenAI-style servers send arguments as a JSON-encoded string; accept both forms.
    const inner = args.trim() ? parseBoundedJson(args) : { value: {} };
    if ('error' in inner) return `Error: could not parse arguments of ${name}: ${inner.error}`;
    args = inner.value;
  }
  if (!isPlainObject(args)) return `Error: arguments of ${name} must be a JSON object`;
  if (tools) {
    const spec = tools.find((t) => t.name === name);
    if (!spec) return `Error: Tool '${name}' not found`;
    const problem = validateToolArguments(spec, args);
    if (problem) return `Error: invalid arguments for ${name}: ${problem}`;
  }
  return { name, arguments: args };
}

/**
 * Parse one act turn into an action. With `tools`, unknown tools and arguments that fail the
 * tool's JSON Schema are invalid too; without, only the grammar is checked.
 */
export function parseAction(text: string, tools?: readonly ToolSpec[]): Action {
  try {
    if (typeof text !== 'string') return invalid(`Error: the action is not text (got ${typeof text})`, '');
    if (text.length > PARSER_LIMITS.maxChars) {
      return invalid(`Error: action too long (${text.length} characters, limit ${PARSER_LIMITS.maxChars})`, text);
    }
    const blocks = scanBlocks(text);
    if (typeof blocks === 'string') return invalid(blocks, text);
    if (blocks.length === 0) return invalid('Error: no <tool_call> or <answer> in the action', text);
    const answers = blocks.filter((b) => b.tag === 'answer');
    if (answers.length > 0) {
      if (answers.length !== blocks.length) return invalid('Error: an action is either tool calls or an answer, not both', text);
      if (answers.length > 1) return invalid('Error: more than one <answer>', text);
      return { kind: 'answer', text: answers[0].body.trim() };
    }
    if (blocks.length > PARSER_LIMITS.maxCalls) {
      return invalid(`Error: too many tool calls (${blocks.length}, limit ${PARSER_LIMITS.maxCalls})`, text);
    }
    const calls: ToolCall[] = [];
    for (const block of blocks) {
      const call = parseCall(block.body, tools);
      if (typeof call === 'string') return invalid(call, text);
      calls.push(call);
    }
    return { kind: 'calls', calls };
  } catch (err) {
    // Unreachable by design; kept so that no model output can ever crash a rollout.
    return invalid(
      `Error: could not parse the action (${err instanceof Error ? err.message : 'unknown error'})`,
      typeof text === 'string' ? text : '',
    );
  }
}

/** The text form of an action: `parseAction(formatAction(a))` gives `a` back for valid actions. */
export function formatAction(action: Action): string {
  switch (action.kind) {
    case 'calls':
      return action.calls.map((c) => `<tool_call>${JSON.stringify({ name: c.name, arguments: c.arguments })}</tool_call>`).join('\n');
    case 'answer':
      return `<answer>${action.text}</answer>`;
    case 'invalid':
      return action.raw;
  }
}

/**
 * The JSONL task file that turns any MCP server into an environment: one task per line with an
 * instruction, a checklist, optional gold calls/answer and a split. Validated line by line;
 * every problem is reported with its line number before anything runs.
 */
import { z } from 'zod';
import { UserPathError, readUserText } from '../../home/user-paths';
import { parseJsonLines } from '../jsonl';
import { validateToolArguments } from '../schema-validate';
import type { JsonValue, Task, ToolSpec } from '../types';
import { STATE_ITEM_SCHEMA, taskStateItems } from './state-checks';
import { describeTaskLineIssues } from './taskfile-issues';

const jsonValue = z.json();
const args = z.record(z.string(), jsonValue);

// Strict objects throughout: a misspelt key ("spilt", or "args" for "arguments") would otherwise be
// dropped silently and the item would check something else than what was written.
const checklistItem = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('call'), weight: z.number().nonnegative(), name: z.string().min(1), arguments: args.optional(), description: z.string().optional() }),
  z.strictObject({ kind: z.literal('no-call'), weight: z.number().nonnegative(), name: z.string().min(1), arguments: args.optional(), description: z.string().optional() }),
  z.strictObject({
    kind: z.literal('answer'),
    weight: z.number().nonnegative(),
    expected: z.array(jsonValue).min(1),
    match: z.enum(['normalised', 'numeric', 'set', 'exact']).optional(),
    tolerance: z.number().nonnegative().optional(),
    description: z.string().optional(),
  }),
  z.strictObject({ kind: z.literal('communicate'), weight: z.number().nonnegative(), text: z.string().min(1), description: z.string().optional() }),
  // A requirement for an LLM judge (a served tau2 task's NL assertion): listed, never scored, whatever its weight.
  z.strictObject({ kind: z.literal('nl-assertion'), weight: z.number().nonnegative(), text: z.string().min(1), description: z.string().optional() }),
  // End-state checks: scored against the server after the episode (state-checks.ts), not by the transcript.
  STATE_ITEM_SCHEMA,
]);

export const TASK_LINE_SCHEMA = z.strictObject({
  id: z.string().min(1).max(200),
  instruction: z.string().min(1).max(20_000),
  split: z.enum(['train', 'heldout', 'ood']).default('train'),
  checklist: z
    .array(checklistItem)
    .min(1)
    .refine(
      (items) => items.some((i) => i.kind !== 'state' && i.kind !== 'nl-assertion' && i.weight > 0),
      'needs at least one call, no-call, answer or communicate item with a positive weight (state items check the end state and gate success; the reward reads the transcript)',
    ),
  gold: z
    .strictObject({
      calls: z.array(z.strictObject({ name: z.string().min(1), arguments: args })).default([]),
      answer: z.string().nullable().default(null),
    })
    .optional(),
  maxTurns: z.number().int().min(1).max(500).default(12),
});

export type TaskLine = z.infer<typeof TASK_LINE_SCHEMA>;

export interface TaskFileProblem {
  line: number;
  message: string;
}

export class TaskFileError extends Error {
  override name = 'TaskFileError';
  constructor(
    readonly source: string,
    readonly problems: TaskFileProblem[],
  ) {
    const shown = problems.slice(0, 20).map((p) => `  line ${p.line}: ${p.message}`);
    const more = problems.length > 20 ? [`  … and ${problems.length - 20} more`] : [];
    super([`invalid task file ${source}:`, ...shown, ...more].join('\n'));
  }
}

/** Largest task file accepted (characters of text, and bytes on disk), so a wrong path to a huge file fails fast. */
export const MAX_TASK_FILE_CHARS = 20_000_000;

/** Read and parse a task file the user named: a regular file within the size limit, then parseTaskFile. */
export function readTaskFile(file: string, envId: string): Task[] {
  let text: string;
  try {
    text = readUserText(file, { what: 'the task file', maxBytes: MAX_TASK_FILE_CHARS }).text;
  } catch (error) {
    if (error instanceof UserPathError) throw new TaskFileError(file, [{ line: 0, message: error.message }]);
    throw error;
  }
  return parseTaskFile(text, envId, file);
}

type FileItem = Exclude<z.infer<typeof checklistItem>, { kind: 'state' }>;

/** The file's `arguments` is the checklist's `args` inside the engine (one name per layer; the file matches gold and state items). */
function toChecklistItem(item: FileItem): Task['checklist'][number] {
  if (item.kind !== 'call' && item.kind !== 'no-call') return item;
  const { arguments: given, ...rest } = item;
  return given === undefined ? rest : { ...rest, args: given };
}

/** The inverse, for writing an engine task back as a task-file line (the served env's tasks, mcp-serve/taskfile.ts). */
export function toFileItem(item: Task['checklist'][number]): FileItem {
  if (item.kind !== 'call' && item.kind !== 'no-call') return item;
  const { args: given, ...rest } = item;
  return given === undefined ? rest : { ...rest, arguments: given };
}

/** Parse JSONL text into tasks for environment `envId`; blank lines are skipped. */
export function parseTaskFile(text: string, envId: string, source = '<tasks>'): Task[] {
  if (text.length > MAX_TASK_FILE_CHARS) {
    throw new TaskFileError(source, [{ line: 0, message: `file too large (${text.length} characters, limit ${MAX_TASK_FILE_CHARS})` }]);
  }
  const problems: TaskFileProblem[] = [];
  const tasks: Task[] = [];
  const seen = new Map<string, number>();
  for (const entry of parseJsonLines(text)) {
    const { line } = entry;
    if (entry.problem !== undefined) {
      problems.push({ line, message: entry.problem });
      continue;
    }
    const parsed = TASK_LINE_SCHEMA.safeParse(entry.value);
    if (!parsed.success) {
      for (const message of describeTaskLineIssues(entry.value, parsed.error.issues)) problems.push({ line, message });
      continue;
    }
    const t = parsed.data;
    const first = seen.get(t.id);
    if (first !== undefined) {
      problems.push({ line, message: `duplicate task id "${t.id}" (first on line ${first})` });
      continue;
    }
    seen.set(t.id, line);
    tasks.push({
      id: t.id,
      env: envId,
      split: t.split,
      instruction: t.instruction,
      gold: t.gold ?? { calls: [], answer: null },
      checklist: t.checklist.filter((i) => i.kind !== 'state').map(toChecklistItem),
      maxTurns: t.maxTurns,
      meta: t.checklist.some((i) => i.kind === 'state') ? { line, state: t.checklist.filter((i) => i.kind === 'state') } : { line },
    });
  }
  if (problems.length > 0) throw new TaskFileError(source, problems);
  if (tasks.length === 0) throw new TaskFileError(source, [{ line: 0, message: 'no tasks in the file' }]);
  return tasks;
}

/**
 * Tasks checked against the server's tool list: every gold call and checklist call names a tool
 * the server has, and gold arguments satisfy its schema. Problems cite the task's file line.
 */
export function checkTasksAgainstTools(tasks: readonly Task[], tools: readonly ToolSpec[], source = '<tasks>'): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const problems: TaskFileProblem[] = [];
  for (const task of tasks) {
    const line = typeof task.meta?.line === 'number' ? task.meta.line : 0;
    for (const call of task.gold.calls) {
      const spec = byName.get(call.name);
      if (!spec) {
        problems.push({ line, message: `gold call to "${call.name}", which the server does not offer` });
        continue;
      }
      const problem = validateToolArguments(spec, call.arguments);
      if (problem) problems.push({ line, message: `gold call to "${call.name}" has bad arguments: ${problem}` });
    }
    for (const item of task.checklist) {
      if ((item.kind === 'call' || item.kind === 'no-call') && !byName.has(item.name)) {
        problems.push({ line, message: `checklist names tool "${item.name}", which the server does not offer` });
      }
    }
    for (const item of taskStateItems(task)) {
      const spec = byName.get(item.tool);
      if (!spec) problems.push({ line, message: `state check calls "${item.tool}", which the server does not offer` });
      else {
        const problem = validateToolArguments(spec, item.arguments as { [key: string]: JsonValue });
        if (problem) problems.push({ line, message: `state check on "${item.tool}" has bad arguments: ${problem}` });
      }
    }
  }
  if (problems.length > 0) throw new TaskFileError(source, problems);
}

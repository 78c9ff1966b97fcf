import { z } from 'zod';
import { Id } from './common';

export const EnvSplit = z.enum(['train', 'heldout', 'ood']);
export const EnvTrack = z.enum(['scratch', 'pretrained', 'mcp']);

export const ToolSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});

export const EnvSummary = z.strictObject({
  id: Id,
  description: z.string(),
  track: EnvTrack,
  toolCount: z.number().int(),
  taskCounts: z.strictObject({ train: z.number().int(), heldout: z.number().int(), ood: z.number().int() }),
});
export type EnvSummary = z.infer<typeof EnvSummary>;

export const EnvsListOutput = z.strictObject({ items: z.array(EnvSummary) });
export const EnvsGetInput = z.strictObject({ id: Id });
export const EnvDetail = z.strictObject({ ...EnvSummary.shape, tools: z.array(ToolSchema) });
export type EnvDetail = z.infer<typeof EnvDetail>;

/** One tool call by hand in a fresh episode (the Environments console). */
export const EnvsCallInput = z.strictObject({
  env: Id,
  tool: z.string().min(1).max(200),
  arguments: z.record(z.string().max(200), z.json()).default({}),
  taskId: z.string().max(200).optional(),
});
export const EnvsCallOutput = z.strictObject({
  /** What the environment answered, worded as a real server would (errors included). */
  observation: z.string(),
  ok: z.boolean(),
  wallMs: z.number(),
});

/** A user's MCP server (stdio command or streamable HTTP URL) plus a JSONL task file, as an environment. */
export const McpServer = z.union([
  z.strictObject({ command: z.string().min(1).max(4096), args: z.array(z.string().max(4096)).max(64).default([]) }),
  z.strictObject({ url: z.url({ protocol: /^https?$/ }).max(4096) }),
]);
export const EnvsAddMcpInput = z.strictObject({
  id: Id,
  description: z.string().max(500).optional(),
  server: McpServer,
  /** JSON Lines: {id, instruction, split?, checklist, gold?, maxTurns?} per line. */
  taskFile: z.string().min(1).max(4096),
  timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
  maxOutputChars: z.number().int().min(100).max(1_000_000).default(8_000),
});
export type EnvsAddMcpInput = z.infer<typeof EnvsAddMcpInput>;

export const EnvsTasksInput = z.strictObject({
  id: Id,
  /** The tasks of this run's world (its world size and seed), rather than the environment's defaults. */
  runId: Id.optional(),
  split: EnvSplit.optional(),
  search: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(1000).default(200),
  offset: z.number().int().min(0).default(0),
});
export const TaskRefShape = z.strictObject({ id: z.string(), split: EnvSplit, instruction: z.string() });
export const EnvsTasksOutput = z.strictObject({ items: z.array(TaskRefShape), total: z.number().int() });

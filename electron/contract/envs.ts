import { z } from 'zod';
import { Id } from './common';
import { FolderName } from './folder-name';

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
  /** How episodes are isolated, in words (user MCP servers and the built-in files env). */
  reset: z.string().optional(),
  /** Set when a registered environment cannot be built: why, in full. It lists with zero tools and tasks. */
  unavailable: z.string().optional(),
});
export type EnvSummary = z.infer<typeof EnvSummary>;

export const EnvsListOutput = z.strictObject({
  items: z.array(EnvSummary),
  /** Problems with the saved registrations that belong to no one entry (a corrupt file), in full. */
  problems: z.array(z.string()).optional(),
});
export const EnvsGetInput = z.strictObject({ id: Id });
/** Registered environment ids, without building any (envs.list builds each to count its tasks: seconds on first use). */
export const EnvsIdsOutput = z.strictObject({ ids: z.array(Id) });
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
  z.strictObject({
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(4096)).max(64).default([]),
    /** Environment variables for the server process (many servers are configured this way). `{episode_dir}` is substituted. */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').max(200), z.string().max(4096)).default({}),
    /** Working folder of the server process; `{episode_dir}` is substituted. */
    cwd: z.string().min(1).max(4096).optional(),
  }),
  z.strictObject({ url: z.url({ protocol: /^https?$/ }).max(4096) }),
]);
export type McpServer = z.infer<typeof McpServer>;

/**
 * How episodes are kept apart on a server that keeps state between calls:
 * - restart: a fresh server process per episode, `{episode_dir}` (a new empty folder, seed files copied in first) substituted in args, env and cwd;
 * - tool: one of a pool of server processes, with a named reset tool called before each episode;
 * - none: one shared server, state and all: episodes see each other's writes (allowed only when the user says so).
 */
export const McpReset = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('restart'), seedFiles: z.array(z.string().min(1).max(4096)).max(64).default([]) }),
  z.strictObject({ kind: z.literal('tool'), tool: z.string().min(1).max(200), arguments: z.record(z.string().max(200), z.json()).default({}) }),
  z.strictObject({ kind: z.literal('none'), sharedState: z.literal(true, 'reset "none" shares one server state across episodes: set sharedState: true to say you mean it') }),
]);
export type McpReset = z.infer<typeof McpReset>;

/** The placeholder restart mode replaces with each episode's own folder (args, env values, cwd). */
export const EPISODE_DIR_PLACEHOLDER = '{episode_dir}';

/** Where a stdio server's spec names `{episode_dir}` ("--arg 2", "--env DB", "--cwd"), or none. */
export function episodeDirUses(server: McpServer): string[] {
  if (!('command' in server)) return [];
  const has = (s: string) => s.includes(EPISODE_DIR_PLACEHOLDER);
  return [
    ...server.args.flatMap((a, i) => (has(a) ? [`--arg ${i + 1}`] : [])),
    ...Object.entries(server.env).flatMap(([k, v]) => (has(v) ? [`--env ${k}`] : [])),
    ...(server.cwd !== undefined && has(server.cwd) ? ['--cwd'] : []),
  ];
}

export const EnvsAddMcpInput = z
  .strictObject({
    /** Becomes the folder `<home>/mcp/<id>/`. */
    id: FolderName('an MCP environment id'),
    description: z.string().max(500).optional(),
    server: McpServer,
    /** JSON Lines: {id, instruction, split?, checklist, gold?, maxTurns?} per line. Anywhere the user points; copied into the data home. */
    taskFile: z.string().min(1).max(4096),
    /** Default: restart for a command, which a URL cannot do (it must say tool or none). */
    reset: McpReset.optional(),
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    maxOutputChars: z.number().int().min(100).max(1_000_000).default(8_000),
  })
  .refine((e) => !('url' in e.server) || (e.reset !== undefined && e.reset.kind !== 'restart'), {
    message: 'a server reached by URL cannot be restarted per episode: choose reset "tool" (with its reset tool) or "none"',
    path: ['reset'],
  })
  // Only restart makes a folder per episode; elsewhere the server would get the literal text (a file
  // named "{episode_dir}", or a start-up that hangs and is reported as a time-out).
  .superRefine((e, ctx) => {
    const uses = e.reset && e.reset.kind !== 'restart' ? episodeDirUses(e.server) : [];
    if (uses.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['server'],
        message: `${EPISODE_DIR_PLACEHOLDER} (in ${uses.join(', ')}) is substituted only by reset "restart", which makes a folder per episode; under reset "${e.reset!.kind}" the server would get the text itself. Use --reset restart, or name a real path`,
      });
    }
  });
export type EnvsAddMcpInput = z.infer<typeof EnvsAddMcpInput>;

/** A registration as stored in the data home: the task and seed files are the home's copies, the reset explicit. */
export type McpRegistration = Omit<EnvsAddMcpInput, 'reset'> & { reset: McpReset };

export const EnvsRemoveInput = z.strictObject({ id: Id });

/**
 * `envs.test`'s input: `limit` replays at most that many tasks of each split, spread evenly over it
 * (each replay may start a server process, and a file of 100k tasks took hours); without it, every task.
 */
/** Gold replays per split the CLI and the GUI make unless asked for every task: enough to catch a broken file, seconds not hours. */
export const ENVS_TEST_SAMPLE = 25;
export const EnvsTestInput = z.strictObject({ id: Id, limit: z.number().int().min(1).max(1_000_000).optional() });
export type EnvsTestInput = z.infer<typeof EnvsTestInput>;

/** `envs.test`: connect, list tools, check the task file, replay every gold trajectory through the real server. */
export const EnvsTestOutput = z.strictObject({
  id: Id,
  tools: z.array(z.string()),
  reset: z.string(),
  oracle: z.strictObject({
    /**
     * total counts every task replayed; unchecked ones (a check the env cannot make) are neither passed
     * nor failures; `of`, only when a limit left some out: how many tasks the split has.
     */
    split: z.record(EnvSplit, z.strictObject({ passed: z.number().int(), total: z.number().int(), unchecked: z.number().int().optional(), of: z.number().int().optional() })),
    failures: z.array(z.strictObject({ taskId: z.string(), reason: z.string() })),
  }),
  wallMs: z.number(),
});
export type EnvsTestOutput = z.infer<typeof EnvsTestOutput>;

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

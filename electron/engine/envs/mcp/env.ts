/**
 * `McpToolEnv`: any MCP server plus a JSONL task file becomes a ToolEnv. The tool list comes
 * from the server; one connection serves every episode and is restarted when it has died.
 */
import { replayExpert } from '../household/expert';
import type { EnvRegistration } from '../registry';
import type { ExpertPolicy, Split, Task, TaskRef, ToolEnv, ToolSpec } from '../types';
import { DEFAULT_CALL_LIMITS, McpConnection, type McpCallLimits, type McpServerSpec } from './connection';
import { McpEpisode } from './episode';
import { checkTasksAgainstTools, readTaskFile } from './taskfile';

export interface McpEnvOptions {
  id: string;
  description?: string;
  server: McpServerSpec;
  tasks: Task[];
  limits?: Partial<McpCallLimits>;
  /** Where the tasks came from, for error messages. */
  taskSource?: string;
}

export class McpToolEnv implements ToolEnv {
  readonly id: string;
  readonly description: string;
  readonly track = 'mcp' as const;
  readonly limits: McpCallLimits;
  /** How many times a dead server was started again for a new episode. */
  restarts = 0;
  private readonly byId: Map<string, Task>;

  private constructor(
    private readonly opts: McpEnvOptions,
    private connection: McpConnection,
    private readonly toolList: ToolSpec[],
  ) {
    this.id = opts.id;
    this.description = opts.description ?? `MCP server ${opts.server.transport === 'stdio' ? opts.server.command : opts.server.url}`;
    this.limits = { ...DEFAULT_CALL_LIMITS, ...(opts.limits ?? {}) };
    this.byId = new Map(opts.tasks.map((t) => [t.id, t]));
  }

  /** Connect to the server, read its tool list and check the tasks against it. */
  static async create(opts: McpEnvOptions): Promise<McpToolEnv> {
    const connection = await McpConnection.open(opts.server);
    try {
      const tools = await connection.listTools();
      checkTasksAgainstTools(opts.tasks, tools, opts.taskSource);
      return new McpToolEnv(opts, connection, tools);
    } catch (err) {
      await connection.close();
      throw err;
    }
  }

  /** Same as create, with the tasks read from a JSONL task file. */
  static async fromTaskFile(opts: Omit<McpEnvOptions, 'tasks'> & { taskFile: string }): Promise<McpToolEnv> {
    return McpToolEnv.create({ ...opts, tasks: readTaskFile(opts.taskFile, opts.id), taskSource: opts.taskFile });
  }

  tools(): ToolSpec[] {
    return this.toolList;
  }

  tasks(split: Split): TaskRef[] {
    return [...this.byId.values()].filter((t) => t.split === split).map((t) => ({ id: t.id, split: t.split, instruction: t.instruction }));
  }

  task(id: string): Task {
    const task = this.byId.get(id);
    if (!task) throw new Error(`${this.id}: no task "${id}"`);
    return task;
  }

  /** The live connection episodes use (exposed so callers can inspect or stop the server). */
  get server(): McpConnection {
    return this.connection;
  }

  async reset(task: Task, _seed: number): Promise<McpEpisode> {
    if (!this.connection.alive) {
      await this.connection.close();
      this.connection = await McpConnection.open(this.opts.server);
      this.restarts += 1;
    }
    const names = this.toolList.map((t) => t.name).join(', ');
    return new McpEpisode({
      task,
      connection: this.connection,
      limits: this.limits,
      initialObservation: `Connected to the tool server (${this.toolList.length} tools: ${names}).`,
    });
  }

  expert(task: Task): ExpertPolicy {
    return replayExpert(task);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

/** A user's server and task file as a registry entry: `registerEnv(mcpRegistration({...}))`. */
export function mcpRegistration(opts: Omit<McpEnvOptions, 'tasks'> & { taskFile: string }): EnvRegistration {
  return {
    id: opts.id,
    description: opts.description ?? `MCP server ${opts.server.transport === 'stdio' ? opts.server.command : opts.server.url} with tasks from ${opts.taskFile}`,
    track: 'mcp',
    options: [],
    create: () => McpToolEnv.fromTaskFile(opts),
  };
}

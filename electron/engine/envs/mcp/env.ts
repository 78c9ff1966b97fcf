/**
 * `McpToolEnv`: any MCP server plus a JSONL task file becomes a ToolEnv. The tool list comes
 * from the server; each episode gets a server of its own per the reset policy (episode-servers.ts).
 */
import { replayExpert } from '../household/expert';
import type { EnvRegistration } from '../registry';
import { scratchDir } from '../scratch';
import type { ExpertPolicy, Split, Task, TaskRef, ToolEnv, ToolSpec } from '../types';
import { join } from 'node:path';
import type { McpReset } from '../../../contract';
import { DEFAULT_CALL_LIMITS, type McpCallLimits, type McpServerSpec } from './connection';
import { McpEpisode } from './episode';
import { episodeServers, type EpisodeServers } from './episode-servers';
import { type ServerDownEpisode, serverOrDown } from './server-down-episode';
import { runStateChecks, taskStateItems } from './state-checks';
import { checkTasksAgainstTools, readTaskFile } from './taskfile';

export interface McpEnvOptions {
  id: string;
  description?: string;
  server: McpServerSpec;
  /** How episodes are kept apart (episode-servers.ts). Default: restart for a command, none for a URL. */
  reset?: McpReset;
  /** Where the restart policy makes its per-episode folders. */
  episodeRoot?: string;
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
  private readonly byId: Map<string, Task>;

  private constructor(
    opts: McpEnvOptions,
    private readonly servers: EpisodeServers,
    private readonly toolList: ToolSpec[],
  ) {
    this.id = opts.id;
    this.description = opts.description ?? `MCP server ${opts.server.transport === 'stdio' ? opts.server.command : opts.server.url}`;
    this.limits = { ...DEFAULT_CALL_LIMITS, ...(opts.limits ?? {}) };
    this.byId = new Map(opts.tasks.map((t) => [t.id, t]));
  }

  /** How episodes are isolated, in words. */
  get resetDescription(): string {
    return this.servers.description;
  }

  /** Start one episode's server, read its tool list and check the tasks against it. */
  static async create(opts: McpEnvOptions): Promise<McpToolEnv> {
    const limits = { ...DEFAULT_CALL_LIMITS, ...(opts.limits ?? {}) };
    const reset = opts.reset ?? (opts.server.transport === 'stdio' ? { kind: 'restart' as const, seedFiles: [] } : { kind: 'none' as const, sharedState: true as const });
    const servers = episodeServers(opts.server, reset, { episodeRoot: opts.episodeRoot ?? scratchDir(join('mcp', opts.id)), limits });
    try {
      const probe = await servers.acquire();
      try {
        const tools = await probe.connection.listTools(limits.timeoutMs);
        checkTasksAgainstTools(opts.tasks, tools, opts.taskSource);
        return new McpToolEnv(opts, servers, tools);
      } finally {
        await probe.release();
      }
    } catch (err) {
      await servers.close();
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

  /**
   * A server of its own for this episode (per the reset policy), its state checks run before it is
   * released. A server that cannot be had fails this episode only (ServerDownEpisode), never the
   * eval, training run or `envs test` around it.
   */
  async reset(task: Task, _seed: number): Promise<McpEpisode | ServerDownEpisode> {
    const got = await serverOrDown(task, () => this.servers.acquire());
    if ('down' in got) return got.down;
    const { server } = got;
    const names = this.toolList.map((t) => t.name).join(', ');
    const stateItems = taskStateItems(task);
    return new McpEpisode({
      task,
      connection: server.connection,
      limits: this.limits,
      initialObservation: `Connected to the tool server (${this.toolList.length} tools: ${names}).`,
      endChecks: stateItems.length ? () => runStateChecks(stateItems, server.connection, this.limits) : undefined,
      onClose: () => server.release(),
    });
  }

  expert(task: Task): ExpertPolicy {
    return replayExpert(task);
  }

  async close(): Promise<void> {
    await this.servers.close();
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

/**
 * `files`: the real @modelcontextprotocol/server-filesystem over a freshly generated sandbox
 * folder per episode, reached through the MCP adapter. Nobody here wrote the server; what it
 * answers is what the agent sees.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { scoreChecklist } from '../checklist';
import { replayExpert } from '../household/expert';
import { DEFAULT_CALL_LIMITS, McpConnection, type McpCallLimits, type McpServerSpec } from '../mcp/connection';
import { McpEpisode, type McpEpisodeOptions } from '../mcp/episode';
import { EPISODE_DIR, RestartServers } from '../mcp/episode-servers';
import { type ServerDownEpisode, serverOrDown } from '../mcp/server-down-episode';
import { scratchDir } from '../scratch';
import { GeneratedTaskSet } from '../task-set';
import type { EnvCheck, ExpertPolicy, Split, Task, TaskRef, ToolEnv, ToolSpec } from '../types';
import { SANDBOX_ALIAS, Sandbox } from './sandbox';
import { generateFilesTask, type FileExpectation } from './tasks';
import { generateTree } from './tree';

export interface FilesOptions {
  /** Files in each sandbox: the world-size knob. */
  files?: number;
  tasksPerSplit?: number;
  limits?: Partial<McpCallLimits>;
}

export const FILES_DEFAULTS = { files: 12, tasksPerSplit: 40 } as const;
export const FILES_RANGE = { min: 6, max: 40 } as const;

/** The installed server's entry point, run with this Node binary (no npx, no network). */
export function filesystemServerEntry(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
}

function serverFor(root: string): McpServerSpec {
  return { transport: 'stdio', command: process.execPath, args: [filesystemServerEntry(), root], cwd: root };
}

/** The files env is a user of the restart policy: a fresh server over a fresh `{episode_dir}` per episode. */
function filesServers(): RestartServers {
  return new RestartServers(serverFor(EPISODE_DIR), [], scratchDir('files'));
}

/** The task's answer items, scored on the final answer alone, become end-state checks too. */
function answerChecks(task: Task, answer: string | null): EnvCheck['checks'] {
  const items = task.checklist.filter((i) => i.kind === 'answer');
  if (items.length === 0) return [];
  const result = scoreChecklist(items, { calls: [], answer, messages: answer === null ? [] : [answer], formatErrors: 0 });
  return result.items.map((r) => ({ name: r.description, passed: r.passed, ...(r.detail ? { detail: r.detail } : {}) }));
}

async function checkExpectations(sandbox: Sandbox, expectations: FileExpectation[]): Promise<EnvCheck['checks']> {
  const checks: EnvCheck['checks'] = [];
  for (const e of expectations) {
    const actual = await sandbox.read(e.path);
    if ('absent' in e) {
      checks.push({ name: `${e.path} is gone`, passed: actual === null, ...(actual !== null ? { detail: 'the file still exists' } : {}) });
    } else {
      const passed = actual !== null && actual.trim() === e.content.trim();
      const detail = actual === null ? 'no such file' : passed ? undefined : `content is ${JSON.stringify(actual.slice(0, 120))}`;
      checks.push({ name: `${e.path} has the expected content`, passed, ...(detail ? { detail } : {}) });
    }
  }
  return checks;
}

/** An MCP episode that owns its sandbox folder and its server process. */
export class FilesEpisode extends McpEpisode {
  constructor(
    opts: McpEpisodeOptions,
    readonly sandboxRoot: string,
  ) {
    super(opts);
  }
}

export class FilesEnv implements ToolEnv {
  readonly id = 'files';
  readonly track = 'scratch' as const;
  readonly description = 'A sandbox folder behind the real MCP filesystem server: find, read, count, search, move and write files.';
  readonly fileCount: number;
  readonly limits: McpCallLimits;
  private readonly tasksPerSplit: number;
  private readonly taskSet: GeneratedTaskSet;
  private readonly servers = filesServers();
  /** How episodes are isolated, in words (listed with the env). */
  readonly resetDescription = this.servers.description;

  private constructor(
    private readonly toolList: ToolSpec[],
    opts: FilesOptions,
  ) {
    this.fileCount = opts.files ?? FILES_DEFAULTS.files;
    this.tasksPerSplit = opts.tasksPerSplit ?? FILES_DEFAULTS.tasksPerSplit;
    this.limits = { ...DEFAULT_CALL_LIMITS, ...(opts.limits ?? {}) };
    this.taskSet = new GeneratedTaskSet(
      this.tasksPerSplit,
      (split, i) => generateFilesTask(split, i, { files: this.fileCount, envId: this.id }),
      (id) => new Error(`files: no task "${id}"`),
    );
  }

  /** Start the server once on an empty sandbox to read its tool list. */
  static async create(opts: FilesOptions = {}): Promise<FilesEnv> {
    const files = opts.files ?? FILES_DEFAULTS.files;
    if (!Number.isInteger(files) || files < FILES_RANGE.min || files > FILES_RANGE.max) {
      throw new RangeError(`files: world size must be an integer number of files in [${FILES_RANGE.min}, ${FILES_RANGE.max}], got ${opts.files}`);
    }
    const tasksPerSplit = opts.tasksPerSplit ?? FILES_DEFAULTS.tasksPerSplit;
    if (!Number.isInteger(tasksPerSplit) || tasksPerSplit < 1) throw new RangeError(`files: tasksPerSplit must be a positive integer, got ${opts.tasksPerSplit}`);
    const probe = await Sandbox.create({ dirs: [], files: [] }, scratchDir('files'));
    try {
      const conn = await McpConnection.open(serverFor(probe.root));
      try {
        return new FilesEnv(await conn.listTools(), opts);
      } finally {
        await conn.close();
      }
    } finally {
      await probe.remove();
    }
  }

  tools(): ToolSpec[] {
    return this.toolList;
  }

  tasks(split: Split): TaskRef[] {
    return this.taskSet.refs(split);
  }

  task(id: string): Task {
    return this.taskSet.find(id);
  }

  /** A new sandbox and a new server per episode (the restart policy); the tree is fixed by the task, so the seed changes nothing. */
  /** A server that cannot be had fails this episode only (ServerDownEpisode), as for any MCP env. */
  async reset(task: Task, _seed: number): Promise<FilesEpisode | ServerDownEpisode> {
    const { treeSeed, files } = task.meta ?? {};
    if (task.env !== this.id || typeof treeSeed !== 'number' || typeof files !== 'number') {
      throw new Error(`files: task "${task.id}" is not a files task (env ${task.env}, missing tree parameters)`);
    }
    let sandbox: Sandbox | null = null;
    const got = await serverOrDown(task, () =>
      this.servers.acquire(async (dir) => {
        sandbox = await Sandbox.fill(dir, generateTree(treeSeed, task.split, files));
      }),
    );
    if ('down' in got) return got.down;
    const { server } = got;
    const box = sandbox as unknown as Sandbox;
    const expectations = (task.meta?.expect ?? []) as unknown as FileExpectation[];
    const options: McpEpisodeOptions = {
      task,
      connection: server.connection,
      limits: this.limits,
      initialObservation: `You have a folder at ${SANDBOX_ALIAS} with ${files} files in ${SANDBOX_ALIAS}/{notes,data,docs,inbox,archive}. Use the file tools to work in it.`,
      translate: { args: (a) => box.argsToReal(a), text: (t) => box.toAlias(t) },
      endChecks: async (answer) => [...answerChecks(task, answer), ...(await checkExpectations(box, expectations))],
      onClose: () => server.release(),
    };
    return new FilesEpisode(options, box.root);
  }

  expert(task: Task): ExpertPolicy {
    return replayExpert(task);
  }
}

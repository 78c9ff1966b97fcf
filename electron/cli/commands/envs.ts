import type { Command } from 'commander';
import { ENVS_TEST_SAMPLE, type EnvsAddMcpInput, type McpReset } from '../../contract';
import { withEngine } from '../engine-session';
import { CliError, EXIT, table } from '../output';
import { act, leaf, type CommonOptions } from './common';

interface AddMcpOptions extends CommonOptions {
  command?: string;
  arg: string[];
  env: string[];
  cwd?: string;
  url?: string;
  tasks: string;
  reset?: string;
  resetTool?: string;
  resetArgs?: string;
  seed: string[];
  sharedState?: boolean;
  timeoutMs?: string;
  maxOutput?: string;
  description?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Gold replays `envs test` makes per split unless told otherwise: each may start a server process. */
export const DEFAULT_TEST_TASKS = ENVS_TEST_SAMPLE;

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${flag} must be a positive integer`, EXIT.usage);
  return n;
}

/** The command line's flags as the contract's input; every mistake is a usage error naming the flag. */
export function addMcpInput(id: string, o: AddMcpOptions): EnvsAddMcpInput {
  if ((o.command === undefined) === (o.url === undefined)) throw new CliError('give the server as --command CMD [--arg A …] or as --url URL (one of them)', EXIT.usage);
  if (o.url !== undefined && (o.arg.length || o.env.length || o.cwd)) throw new CliError('--arg, --env and --cwd apply to a --command server, not a --url one', EXIT.usage);
  const env: Record<string, string> = Object.create(null);
  for (const pair of o.env) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`--env takes KEY=VALUE, got "${pair}"`, EXIT.usage);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  let reset: McpReset | undefined;
  const kind = o.reset ?? (o.resetTool ? 'tool' : o.sharedState ? 'none' : o.seed.length ? 'restart' : undefined);
  if (kind === 'restart') reset = { kind, seedFiles: o.seed };
  else if (kind === 'tool') {
    if (!o.resetTool) throw new CliError('--reset tool needs --reset-tool NAME (the server tool that clears its state)', EXIT.usage);
    let args: Record<string, unknown> = {};
    if (o.resetArgs !== undefined) {
      try {
        args = JSON.parse(o.resetArgs) as Record<string, unknown>;
      } catch {
        throw new CliError('--reset-args must be a JSON object', EXIT.usage);
      }
    }
    reset = { kind, tool: o.resetTool, arguments: args as never };
  } else if (kind === 'none') {
    if (!o.sharedState) throw new CliError('--reset none shares one server state across episodes (their writes leak into each other); add --shared-state to say you mean it', EXIT.usage);
    reset = { kind, sharedState: true };
  } else if (kind !== undefined) throw new CliError(`--reset must be restart, tool or none, got "${kind}"`, EXIT.usage);
  if (o.seed.length && kind !== 'restart') throw new CliError('--seed files are copied into each episode folder, which only --reset restart makes', EXIT.usage);
  const server = o.command !== undefined ? { command: o.command, args: o.arg, env, ...(o.cwd ? { cwd: o.cwd } : {}) } : { url: o.url! };
  return {
    id,
    server,
    taskFile: o.tasks,
    ...(o.description ? { description: o.description } : {}),
    ...(reset ? { reset } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: positiveInt(o.timeoutMs, '--timeout-ms') } : {}),
    ...(o.maxOutput !== undefined ? { maxOutputChars: positiveInt(o.maxOutput, '--max-output') } : {}),
  } as EnvsAddMcpInput;
}

export function registerEnvs(program: Command): void {
  const envs = program.command('envs').description('environments: list them, show their tools, add your own MCP server');
  leaf(envs.command('list', { isDefault: true }).description('environments with task counts per split')).action(
    act(async (_args, opts, out) => {
      const result = await withEngine(opts.home, (api) => api.call('envs.list'));
      const problems = (result.problems ?? []).map((p) => `unavailable: ${p}`);
      out.result(result, () =>
        result.items.length === 0
          ? ['No environments registered.', ...problems].join('\n')
          : [table([
              ['ID', 'TRACK', 'TOOLS', 'TRAIN', 'HELDOUT', 'OOD', 'DESCRIPTION'],
              ...result.items.map((e) => [
                e.id,
                e.track,
                String(e.toolCount),
                String(e.taskCounts.train),
                String(e.taskCounts.heldout),
                String(e.taskCounts.ood),
                e.unavailable ? `unavailable: ${e.unavailable}` : e.reset ? `${e.description} [reset ${e.reset.split(':')[0]}]` : e.description,
              ]),
            ]),
              ...problems,
            ].join('\n'),
      );
    }),
  );
  leaf(envs.command('show').argument('<id>', 'environment id').description('one environment with its tool schemas')).action(
    act(async ([id], opts, out) => {
      const env = await withEngine(opts.home, (api) => api.call('envs.get', { id }));
      out.result(env, () =>
        [`${env.id} — ${env.description}`, ...(env.reset ? [`reset: ${env.reset}`] : []), ...env.tools.map((t) => `  ${t.name}: ${t.description.split('\n')[0]}`)].join('\n'),
      );
    }),
  );
  leaf(
    envs
      .command('add-mcp')
      .argument('<name>', 'id for the new environment')
      .description('register an MCP server and a JSONL task file as an environment (the task and seed files are copied into the data home)')
      .option('--command <cmd>', 'the server command (stdio transport)')
      .option('--arg <arg>', 'an argument of the command; repeat for more ({episode_dir} is substituted)', collect, [])
      .option('--env <KEY=VALUE>', 'an environment variable of the server; repeat for more ({episode_dir} is substituted)', collect, [])
      .option('--cwd <dir>', 'working folder of the server ({episode_dir} is substituted)')
      .option('--url <url>', 'a streamable-HTTP server instead of a command')
      .requiredOption('--tasks <file>', 'JSONL task file: {id, instruction, split?, checklist, gold?, maxTurns?} per line')
      .option('--reset <policy>', 'restart (default for --command) | tool | none')
      .option('--reset-tool <name>', 'with --reset tool: the server tool called before each episode')
      .option('--reset-args <json>', 'with --reset tool: its arguments, a JSON object')
      .option('--seed <file>', 'with --reset restart: a file copied into {episode_dir} before each episode; repeat for more', collect, [])
      .option('--shared-state', 'with --reset none: accept that episodes share (and see) each other’s writes')
      .option('--timeout-ms <n>', "longest a tool call may take, and a server's start-up (spawn and initialize; 2000 at least) (default 10000)")
      .option('--max-output <n>', 'longest observation kept, in characters (default 8000)')
      .option('--description <text>', 'one line shown in listings'),
  ).action(
    act<AddMcpOptions>(async ([name], opts, out) => {
      const input = addMcpInput(name, opts);
      const env = await withEngine(opts.home, (api) => api.call('envs.addMcp', input));
      out.result(env, () => `added ${env.id}: ${env.toolCount} tools, tasks ${env.taskCounts.train} train / ${env.taskCounts.heldout} heldout / ${env.taskCounts.ood} ood; reset ${env.reset ?? '-'}\ncheck it end to end with: envace envs test ${env.id}`);
    }),
  );
  leaf(envs.command('remove').argument('<name>', 'a user MCP environment').description('unregister an MCP environment and delete its copied files')).action(
    act(async ([name], opts, out) => {
      const result = await withEngine(opts.home, (api) => api.call('envs.remove', { id: name }));
      out.result(result, () => `removed ${name}`);
    }),
  );
  leaf(
    envs
      .command('test')
      .argument('<name>', 'environment id')
      .description(`connect, list tools, check the tasks and replay gold trajectories through the real server (${DEFAULT_TEST_TASKS} per split, spread over it, unless --limit or --all)`)
      .option('--limit <n>', `gold trajectories replayed per split, spread evenly over it (default ${DEFAULT_TEST_TASKS})`)
      .option('--all', 'replay every task (each may start a server process: a file of 100,000 tasks takes hours)'),
  ).action(
    act<CommonOptions & { limit?: string; all?: boolean }>(async ([name], opts, out) => {
      if (opts.all && opts.limit !== undefined) throw new CliError('give --limit N or --all, not both', EXIT.usage);
      const limit = opts.all ? undefined : (positiveInt(opts.limit, '--limit') ?? DEFAULT_TEST_TASKS);
      const result = await withEngine(opts.home, (api) => api.call('envs.test', { id: name, ...(limit !== undefined ? { limit } : {}) }));
      const splits = Object.values(result.oracle.split);
      const passed = splits.reduce((n, s) => n + s.passed, 0);
      const unchecked = splits.reduce((n, s) => n + (s.unchecked ?? 0), 0);
      const total = splits.reduce((n, s) => n + s.total, 0) - unchecked;
      const sampled = splits.some((s) => s.of !== undefined);
      out.result(result, () =>
        [
          `${result.id}: ${result.tools.length} tools (${result.tools.join(', ')})`,
          `reset: ${result.reset}`,
          table([
            ['SPLIT', 'ORACLE', 'UNCHECKED', 'REPLAYED'],
            ...Object.entries(result.oracle.split).map(([s, r]) => [s, r.total ? `${r.passed}/${r.total - (r.unchecked ?? 0)}` : '-', String(r.unchecked ?? 0), r.of !== undefined ? `${r.total} of ${r.of}` : 'all']),
          ]),
          ...result.oracle.failures.map((f) => `  failed ${f.taskId}: ${f.reason}`),
          `oracle ${passed}/${total} in ${(result.wallMs / 1000).toFixed(1)} s${sampled ? ` (${limit} per split, spread over it; --all replays every task)` : ''}`,
        ].join('\n'),
      );
      if (passed !== total) throw new CliError(`the gold replay failed on ${total - passed} of ${total} tasks`, EXIT.error);
    }),
  );
}

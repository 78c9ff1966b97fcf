// A verl export driven by verl's own MCP client code (verl.tools.utils.mcp_clients' ClientManager, the tool
// registry's temporary event loop per listing, MCPBaseTool's session per call) against a real `envace mcp serve`,
// for several trajectories at once in verl's threading pattern: over stdio with fastmcp's keep_alive on and
// off, and over HTTP, where verl's own call path (a session per call) also plays a whole episode.
// test/integration/verl_mcp_clients_check.py does the driving; its header says what of verl runs as it is.
//
// fastmcp and what it imports come from PyPI into a cache (test/helpers/python-deps.ts). verl's MCP client is
// in no verl release on PyPI: verl/tools/utils/mcp_clients has no __init__.py, so find_packages leaves it out
// of every wheel and sdist with MCP tools (0.4.1 … 0.7.1), and 0.8.0 on ship no MCP tools at all. The test
// therefore reads a verl source tree from ENVACE_VERL_SRC (a folder holding verl/, e.g. `git archive
// b178a3cd verl`), else ../shared/reference/verl beside the checkout, and says so where it has none.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../electron/contract';
import { getEnv } from '../../electron/engine/envs/registry';
import type { Task, ToolEnv } from '../../electron/engine/envs/types';
import { exportModel } from '../../electron/engine/models/export';
import { VERL_FILES, type VerlRun } from '../../electron/engine/models/verl/export';
import { tempHome } from '../helpers/engine';
import { mcpServeHttp } from '../helpers/mcp-serve-http';
import { patience } from '../helpers/patience';
import { PYTHON, type PythonDeps, pythonDeps } from '../helpers/python-deps';
import { nanoConfig, randomWeights, smallTokenizer, tempDirs } from '../unit/engine/models/fixtures';

// fastmcp 2.14 is the series verl's MCP code was written against (Client(config dict), call_tool_mcp,
// list_tools_mcp, SSETransport; verl pins no version); the rest is what pip resolved for it, pinned, plus
// omegaconf (verl's tool registry) and regex (verl's tool parser, where FunctionCall lives).
const REQUIREMENTS = [
  'fastmcp==2.14.7', 'mcp==1.30.0', 'pydantic==2.14.4', 'pydantic_core==2.50.5', 'pydantic-settings==2.16.3', 'annotated-types==0.8.0',
  'typing_extensions==4.16.0', 'typing-inspection==0.4.5', 'anyio==4.16.0', 'exceptiongroup==1.3.2', 'httpx==0.29.0', 'httpcore==1.0.9',
  'h11==0.16.0', 'httpx-sse==0.4.3', 'idna==3.20', 'certifi==2026.10.19.post1', 'starlette==1.10.0', 'sse-starlette==3.7.1', 'uvicorn==0.55.0',
  'click==8.5.1', 'python-dotenv==1.2.4', 'python-multipart==0.0.34', 'jsonschema==4.26.0', 'jsonschema-specifications==2025.9.1',
  'referencing==0.37.0', 'rpds-py==2026.9.1', 'attrs==26.1.0', 'PyJWT==2.15.1', 'cryptography==50.0.2', 'cffi==2.1.1', 'pycparser==3.12',
  'Authlib==1.9.10', 'joserfc==1.8.0', 'cyclopts==5.5.2', 'docstring_parser==0.18.0', 'rich==15.0.0', 'rich-rst==2.2.0', 'markdown-it-py==4.3.0',
  'mdurl==0.1.2', 'Pygments==2.21.0', 'openapi-pydantic==0.6.0', 'platformdirs==4.14.9', 'pyperclip==1.11.0', 'websockets==17.4',
  'email-validator==2.4.0', 'dnspython==2.9.2', 'jsonref==1.1.0', 'jsonschema-path==0.5.0', 'pathable==0.6.0', 'PyYAML==6.0.4',
  'py-key-value-aio==0.3.0', 'py-key-value-shared==0.3.0', 'beartype==0.23.1', 'cachetools==8.0.2', 'diskcache==5.6.3', 'pathvalidate==3.3.1',
  'keyring==25.7.0', 'jaraco.classes==3.4.0', 'jaraco.context==6.1.2', 'jaraco.functools==4.6.0', 'backports.tarfile==1.2.0', 'more-itertools==11.2.1',
  'importlib_metadata==10.2.0', 'zipp==4.1.2', 'jeepney==0.9.0', 'SecretStorage==3.5.0', 'pydocket==0.27.2', 'cloudpickle==3.1.3', 'cronsim==2.9',
  'fakeredis==2.34.1', 'redis==8.1.0', 'async-timeout==5.0.1', 'sortedcontainers==2.4.0', 'lupa==2.8', 'burner-redis==0.1.7', 'lazy-importer==0.1.0',
  'opentelemetry-api==1.45.2', 'prometheus_client==0.26.0', 'python-json-logger==4.2.0', 'typer==0.29.2', 'shellingham==1.5.4', 'uncalled-for==0.6.2',
  'annotated-doc==0.0.7', 'packaging==26.4', 'omegaconf==2.4.0', 'regex==2026.11.19',
];

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/envace.mjs');
const checker = join(import.meta.dirname, 'verl_mcp_clients_check.py');
const VERL_SRC = process.env.ENVACE_VERL_SRC ?? resolve(root, '../shared/reference/verl');
const hasVerl = existsSync(join(VERL_SRC, 'verl/tools/utils/mcp_clients/McpClientManager.py'));
const NO_VERL = `no verl source tree at ${VERL_SRC} (ENVACE_VERL_SRC): verl's tools/utils/mcp_clients is in no verl wheel or sdist on PyPI`;

const tmp = tempDirs();
const home = tempHome('envace-verl-clients-');
afterAll(tmp.cleanup);

type Plan = { task_id: string; seed: number; calls: [string, Record<string, unknown>][]; answer: string | null };
type Finish = { task_id: string; reward: number; success: boolean; episode_id: string };
type Trajectory = { task_id: string; episode_id: string; tools: string[]; errors: string[]; finish: Finish; score: { score: number; success: number } };
type Checked = {
  batches: Trajectory[][];
  listings: { temporary_loops: number; closed: boolean }[];
  clients: number;
  verl_calls?: { episode_id: string; errors: string[]; finish_error: string | null; finish: Finish | null };
  versions: { fastmcp: string };
};

let deps: PythonDeps;
let env: ToolEnv;
let folder: string;
let plans: Plan[];
let served: { name: string; args: string[] };

beforeAll(async () => {
  const fetching = hasVerl ? pythonDeps('verl-mcp-fastmcp-2.14', REQUIREMENTS) : Promise.resolve<PythonDeps>({ ok: false, reason: NO_VERL });
  env = await getEnv('retail');
  const refs = env.tasks('train').slice(0, 3);
  const tasks: Task[] = refs.map((r) => env.task(r.id));
  plans = tasks.map((t, i) => ({ task_id: t.id, seed: i, calls: t.gold.calls.map((c) => [c.name, c.arguments]), answer: t.gold.answer }));
  const config = RunConfig.parse({ env: 'retail', algo: 'envace', seed: 1, steps: 2, rollout: { k: 2, tasksPerStep: 2, maxTurns: 6 } });
  const verl: VerlRun = {
    run: { id: 'run-verl-clients', name: 'retail-verl-clients', algo: 'envace', step: 1, config },
    env: { id: env.id, description: env.description, tools: env.tools() },
    tasks: { train: refs, heldout: env.tasks('heldout').slice(0, 2) },
    home,
  };
  folder = join(tmp.make('envace-verl-clients-'), 'retail-verl');
  const model = nanoConfig({ maxSeqLen: 1024 });
  await exportModel({ config: model, weights: randomWeights(model, 2), tokenizer: smallTokenizer(), format: 'verl', outDir: folder, verl, card: { run: verl.run.name, method: 'envace', metrics: {} } });
  const servers = JSON.parse(readFileSync(join(folder, VERL_FILES.servers), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
  const [name, server] = Object.entries(servers.mcpServers)[0]!;
  expect(server.command).toBe('envace');
  served = { name, args: server.args };
  deps = await fetching;
  if (!deps.ok) console.warn(`verl export vs verl's MCP client: SKIPPED (${deps.reason})`);
}, patience(600_000));

/** The folder's server entry, pointed at this checkout's envace (the README: edit the command) or at a URL. */
function serveWith(entry: Record<string, unknown>): void {
  const stdio = { command: process.execPath, args: [bin, ...served.args], ...entry };
  writeFileSync(join(folder, VERL_FILES.servers), JSON.stringify({ mcpServers: { [served.name]: 'url' in entry ? entry : stdio } }));
}

function check(batches: Plan[][], verlCalls: boolean): Checked {
  if (!deps.ok) throw new Error(deps.reason);
  const planFile = join(folder, 'plan.json');
  const outFile = join(folder, 'checked.json');
  writeFileSync(planFile, JSON.stringify({ batches, verl_calls: verlCalls }));
  const r = spawnSync(PYTHON, [checker, VERL_SRC, folder, planFile, outFile], {
    env: { ...deps.env, PYTHONPATH: deps.dir, ENVACE_HOME: home, VERL_CHECK_TIMEOUT_S: String(patience(120_000) / 1000) },
    encoding: 'utf8',
    timeout: patience(300_000),
  });
  if (r.status !== 0) throw new Error(`verl_mcp_clients_check.py exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(readFileSync(outFile, 'utf8')) as Checked;
}

function expectSolved(got: Checked, batches: Plan[][]): void {
  const all = got.batches.flat();
  expect(all.map((t) => t.task_id)).toEqual(batches.flat().map((p) => p.task_id));
  for (const t of all) {
    expect(t.errors, t.task_id).toEqual([]);
    expect(t.tools).toEqual(env.tools().map((x) => x.name).sort());
    expect(t.finish).toMatchObject({ task_id: t.task_id, reward: 1, success: true, episode_id: t.episode_id });
    expect(t.score).toMatchObject({ score: 1, success: 1 });
  }
  // One episode per trajectory, none shared.
  expect(new Set(all.map((t) => t.episode_id)).size).toBe(all.length);
  // verl listed the tools once, in a temporary loop of its own that it closed; one ClientManager client.
  expect(got.listings).toEqual([{ temporary_loops: 1, closed: true }]);
  expect(got.clients).toBe(1);
  expect(got.versions.fastmcp).toBe('2.14.7');
}

// Two worker steps: three trajectories at once, then the same three again (a worker's loop outlives its steps).
const twoSteps = () => [plans, plans.map((p) => ({ ...p, seed: p.seed + 10 }))];

describe('verl export with verl’s own MCP client (verl.tools.utils.mcp_clients, fastmcp)', () => {
  for (const keepAlive of [true, false]) {
    it(`stdio, keep_alive ${keepAlive}: every trajectory of two worker steps finishes its own episode with reward 1`, (ctx) => {
      if (!deps.ok) return ctx.skip(deps.reason);
      serveWith({ keep_alive: keepAlive });
      const batches = twoSteps();
      expectSolved(check(batches, false), batches);
    }, patience(360_000));
  }

  it('HTTP: the same trajectories, and verl’s own call path (a session per call) plays a whole episode', async (ctx) => {
    if (!deps.ok) return ctx.skip(deps.reason);
    // The README's HTTP line: the same flags, --port 0 in place of --stdio.
    const server = await mcpServeHttp(served.args.filter((a) => a !== '--stdio'));
    try {
      serveWith({ url: server.url });
      const batches = twoSteps();
      const got = check(batches, true);
      expectSolved(got, batches);
      // MCPBaseTool.execute → ClientManager.call_tool opens and closes a session for each call: start_task, the
      // gold calls and finish reach one episode all the same.
      expect(got.verl_calls).toMatchObject({ errors: [], finish_error: null, finish: { task_id: plans[0]!.task_id, reward: 1, success: true } });
      expect(got.verl_calls!.finish!.episode_id).toBe(got.verl_calls!.episode_id);
    } finally {
      server.proc.kill('SIGTERM');
    }
  }, patience(360_000));
});

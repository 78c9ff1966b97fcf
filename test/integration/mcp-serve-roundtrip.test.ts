// `envace mcp serve` from the outside, with the MCP SDK's own Client, for retail and household over
// stdio and over streamable HTTP: the tool list, start_task, the task's gold calls through the
// served tools, finish → reward 1 and the end-state check; a wrong call scores lower; concurrent
// episodes (one session, and two HTTP sessions) never see each other's writes; no token, no entry.
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnv } from '../../electron/engine/envs/registry';
import type { Task, ToolEnv } from '../../electron/engine/envs/types';
import { runEnvace } from '../helpers/cli';
import { type HttpServer, mcpServeHttp } from '../helpers/mcp-serve-http';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');
const home = tempHome('envace-mcp-serve-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

type Json = { [key: string]: unknown };
type ToolOut = { text: string; isError: boolean; json: Json };

async function call(client: Client, name: string, args: Json = {}): Promise<ToolOut> {
  const r = (await client.callTool({ name, arguments: args })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
  const text = r.content.map((c) => c.text).join('\n');
  let json: Json = {};
  try {
    json = JSON.parse(text) as Json;
  } catch {
    // an env observation, not one of our JSON results
  }
  return { text, isError: r.isError === true, json };
}

function stdioClient(envId: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', 'serve', '--env', envId, '--split', 'heldout', '--home', home], stderr: 'pipe' });
  const client = new Client({ name: 'roundtrip-test', version: '1.0.0' });
  return client.connect(transport, { timeout: patience(60_000) }).then(() => client);
}

/** `mcp serve --port 0 --json` for one env's held-out split. */
const httpServer = (envId: string): Promise<HttpServer> => mcpServeHttp(['mcp', 'serve', '--env', envId, '--split', 'heldout', '--home', home]);

async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'roundtrip-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: patience(30_000) });
  return client;
}

/** The full round trip on one task: what `finish` says after the gold calls and answer. */
async function goldRoundTrip(client: Client, env: ToolEnv, task: Task): Promise<Json> {
  const started = await call(client, 'start_task', { task_id: task.id });
  expect(started.isError, started.text).toBe(false);
  expect(started.json).toMatchObject({ task_id: task.id, instruction: task.instruction, episode_id: expect.stringMatching(/^ep-/) });
  const episode = started.json.episode_id as string;
  for (const c of task.gold.calls) {
    const out = await call(client, c.name, { ...c.arguments, episode_id: episode });
    expect(out.isError, `${c.name}: ${out.text}`).toBe(false);
  }
  const done = await call(client, 'finish', { episode_id: episode, ...(task.gold.answer !== null ? { answer: task.gold.answer } : {}) });
  expect(done.isError, done.text).toBe(false);
  return done.json;
}

const ENVS = ['retail', 'household'] as const;
const envs: Record<string, ToolEnv> = {};
beforeAll(async () => {
  for (const id of ENVS) envs[id] = await getEnv(id);
});

describe.each(ENVS)('%s served over MCP', (envId) => {
  for (const transport of ['stdio', 'http'] as const) {
    it(`${transport}: lists the tools, and a gold replay of heldout tasks finishes with reward 1 and the end state passing`, async () => {
      const env = envs[envId];
      const server = transport === 'http' ? await httpServer(envId) : null;
      const client = server ? await httpClient(server.url) : await stdioClient(envId);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(['start_task', 'finish', 'list_tasks', ...env.tools().map((t) => t.name)]);
        for (const t of tools.slice(3)) expect(t.inputSchema.properties).toHaveProperty('episode_id');
        const listed = await call(client, 'list_tasks');
        expect((listed.json.tasks as Array<{ id: string }>).map((t) => t.id)).toEqual(env.tasks('heldout').map((t) => t.id));

        const picked = env.tasks('heldout').slice(0, 6);
        for (const ref of picked) {
          const done = await goldRoundTrip(client, env, env.task(ref.id));
          expect(done, ref.id).toMatchObject({ task_id: ref.id, reward: 1, success: true, end_state: { passed: true } });
        }
        // Without a task id, start_task takes the split's first task; the id may then be left out.
        const first = env.task(env.tasks('heldout')[0].id);
        expect((await call(client, 'start_task')).json.task_id).toBe(first.id);
        const last = first.gold.calls.at(-1)!;
        for (const c of first.gold.calls.slice(0, -1)) await call(client, c.name, c.arguments);
        // A wrong last call (a receptacle / order that is not the gold one) costs reward.
        const wrongArgs = Object.fromEntries(Object.entries(last.arguments).map(([k, v]) => [k, typeof v === 'string' ? `${v}9` : v]));
        const wrong = await call(client, last.name, wrongArgs);
        expect(wrong.text.length).toBeGreaterThan(0);
        const scored = await call(client, 'finish', first.gold.answer !== null ? { answer: first.gold.answer } : {});
        expect(scored.json.reward as number).toBeLessThan(1);
        expect(scored.json.episode_id).toMatch(/^ep-/);
      } finally {
        await client.close();
        server?.proc.kill('SIGTERM');
      }
    });
  }
});

describe('isolation and access', () => {
  it('stdio: two concurrent retail write episodes in one session keep their own DB', async () => {
    const env = envs.retail;
    const task = env.task('heldout-0005-cancel-pending');
    const client = await stdioClient('retail');
    try {
      const [a, b] = await Promise.all([call(client, 'start_task', { task_id: task.id }), call(client, 'start_task', { task_id: task.id })]);
      const ids = [a.json.episode_id as string, b.json.episode_id as string];
      // Interleaved: A cancels, then B reads the same order — still pending — and cancels it too.
      for (const c of task.gold.calls) expect((await call(client, c.name, { ...c.arguments, episode_id: ids[0] })).isError).toBe(false);
      expect((await call(client, 'get_order_details', { order_id: '#W8121088', episode_id: ids[0] })).text).toContain('"cancelled"');
      expect((await call(client, 'get_order_details', { order_id: '#W8121088', episode_id: ids[1] })).text).toContain('"pending"');
      const noId = await call(client, 'get_order_details', { order_id: '#W8121088' });
      expect(noId).toMatchObject({ isError: true, text: expect.stringContaining('2 episodes are open in this session') });
      for (const c of task.gold.calls) expect((await call(client, c.name, { ...c.arguments, episode_id: ids[1] })).isError).toBe(false);
      for (const id of ids) expect((await call(client, 'finish', { episode_id: id, answer: 'done' })).json).toMatchObject({ reward: 1, end_state: { passed: true } });
    } finally {
      await client.close();
    }
  });

  it('http: two clients write concurrently without seeing each other; an episode id works from a fresh session per call; no token is refused', async () => {
    const env = envs.retail;
    const task = env.task('heldout-0005-cancel-pending');
    const server = await httpServer('retail');
    const bare = new URL(server.url);
    bare.searchParams.delete('token');
    try {
      expect((await fetch(bare, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
      expect((await fetch(bare, { method: 'POST', headers: { authorization: 'Bearer wrong' }, body: '{}' })).status).toBe(401);
      await expect(httpClient(bare.href)).rejects.toThrow();
      // The token as a Bearer header works as well as in the URL.
      const token = new URL(server.url).searchParams.get('token')!;
      const viaHeader = new Client({ name: 'bearer', version: '1.0.0' });
      await viaHeader.connect(new StreamableHTTPClientTransport(bare, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      const other = await httpClient(server.url);
      try {
        const [a, b] = await Promise.all([call(viaHeader, 'start_task', { task_id: task.id }), call(other, 'start_task', { task_id: task.id })]);
        expect(b.json.episode_id).not.toBe(a.json.episode_id);
        // A's episode goes on from a new session for every call (verl's MCP client opens one per call)
        // while B's client makes its calls without ids in its own session.
        const episodeId = a.json.episode_id as string;
        const oneShot = async (name: string, args: { [key: string]: unknown }) => {
          const client = await httpClient(server.url);
          try {
            return await call(client, name, { ...args, episode_id: episodeId });
          } finally {
            await client.close();
          }
        };
        const [viaIds, own] = await Promise.all([
          (async () => {
            for (const c of task.gold.calls) expect((await oneShot(c.name, c.arguments)).isError).toBe(false);
            return oneShot('finish', { answer: 'done' });
          })(),
          (async () => {
            for (const c of task.gold.calls) expect((await call(other, c.name, c.arguments)).isError).toBe(false);
            return call(other, 'finish', { answer: 'done' });
          })(),
        ]);
        for (const r of [viaIds, own]) expect(r.json).toMatchObject({ reward: 1, end_state: { passed: true } });
        expect(viaIds.json.episode_id).toBe(episodeId);
      } finally {
        await viaHeader.close();
        await other.close();
      }
    } finally {
      server.proc.kill('SIGTERM');
    }
  });
});

describe('envace mcp serve flags', () => {
  it('refuses mistakes with a one-line reason and the usage / not-found exit codes', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['--env', 'retail', '--stdio', '--port', '0'], 2, /--stdio and --port exclude each other/],
      [['--env', 'retail', '--json'], 2, /--json prints on stdout, which stdio gives to the MCP protocol/],
      [['--env', 'retail', '--split', 'test'], 2, /--split must be one of train, heldout, ood/],
      [['--env', 'retail', '--port', '0', '--host', '0.0.0.0'], 2, /loopback only/],
      [['--env', 'nowhere'], 3, /unknown environment 'nowhere'/],
      [['--env', 'retail', '--episode-idle-s', '0'], 2, /--episode-idle-s/],
    ];
    for (const [args, code, reason] of cases) {
      const r = await runEnvace(home, 'mcp', 'serve', ...args);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr).toMatch(reason);
      expect(r.stdout).toBe('');
    }
  });
});

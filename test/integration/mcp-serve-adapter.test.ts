// Our world through our own door: retail served over stdio by `envace mcp serve`, registered back as
// a user MCP environment (`envace envs add-mcp`, a fresh server process per episode) with the task
// file `envace mcp tasks` writes, and the oracle scores 100 % through the MCP adapter — its
// checklist from the transcript the adapter kept, its end state from the served env's own check.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { lastJson, runEnvace } from '../helpers/cli';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');
const home = tempHome('envace-mcp-adapter-');
// The served process keeps a home of its own: it need not read the registering one.
const servedHome = tempHome('envace-mcp-served-');
const memoryHome = tempHome('envace-mcp-reserve-');
afterAll(() => {
  for (const dir of [home, servedHome, memoryHome]) fs.rmSync(dir, { recursive: true, force: true });
});
const FIXTURES = path.join(import.meta.dirname, '../fixtures/mcp-memory');
const memoryServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

const TASKS = 6;

describe('retail over MCP, registered back as an MCP environment', () => {
  it('the oracle replays every task through the adapter at 100 %', async () => {
    const taskFile = path.join(home, 'retail-tasks.jsonl');
    const written = await runEnvace(home, 'mcp', 'tasks', '--env', 'retail', '--split', 'heldout', '--limit', String(TASKS), '--out', taskFile, '--json');
    expect(written.code, written.stderr).toBe(0);
    expect(lastJson(written.stdout)).toMatchObject({ tasks: TASKS });
    const first = JSON.parse(fs.readFileSync(taskFile, 'utf8').split('\n')[0]) as { gold: { calls: Array<{ name: string; arguments: object }> } };
    // The convention: start_task opens the episode; the env's calls then carry no episode_id.
    expect(first.gold.calls[0]).toEqual({ name: 'start_task', arguments: { task_id: 'heldout-0000-order-status' } });
    expect(first.gold.calls.slice(1).every((c) => !('episode_id' in c.arguments))).toBe(true);

    const served = ['mcp', 'serve', '--env', 'retail', '--stdio', '--home', servedHome];
    // Each episode starts a fresh `envace mcp serve` (tsx, then building retail): the default 10 s
    // for a server's start-up was too short under load, so the registration asks for more, as
    // `--timeout-ms` lets a user on a slow machine do.
    const startup = ['--timeout-ms', String(patience(30_000))];
    const added = await runEnvace(home, 'envs', 'add-mcp', 'retail-mcp', '--command', process.execPath, ...[bin, ...served].flatMap((a) => ['--arg', a]), ...startup, '--tasks', taskFile, '--json');
    expect(added.code, added.stderr).toBe(0);
    expect(lastJson(added.stdout)).toMatchObject({ id: 'retail-mcp', toolCount: 19, taskCounts: { heldout: TASKS }, reset: expect.stringMatching(/^restart/) });

    const t0 = performance.now();
    const oracle = await runEnvace(home, 'eval', '--policy', 'oracle', '--env', 'retail-mcp', '--split', 'heldout', '--json');
    const wallMs = performance.now() - t0;
    expect(oracle.code, oracle.stderr).toBe(0);
    const result = lastJson(oracle.stdout);
    expect(result).toMatchObject({ tasks: TASKS, success: 1, score: 1 });
    // The round-trip figures for the report (a server process per episode dominates the time).
    console.log(`retail over MCP via the adapter: ${TASKS} tasks, oracle success ${result.success}, ${(wallMs / 1000).toFixed(1)} s wall (${(wallMs / TASKS / 1000).toFixed(2)} s per task)`);

    // A served env cannot be served again as is: its tools already are the episode tools.
    const again = await runEnvace(home, 'mcp', 'serve', '--env', 'retail-mcp');
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('has a tool named "start_task"');
  });

  it('a registered user MCP server is re-served: gold replays through start_task / finish score 1', async () => {
    const added = await runEnvace(
      memoryHome,
      ...['envs', 'add-mcp', 'memory', '--command', process.execPath, '--arg', memoryServer],
      ...['--env', 'MEMORY_FILE_PATH={episode_dir}/seed-memory.jsonl', '--seed', path.join(FIXTURES, 'seed-memory.jsonl')],
      ...['--tasks', path.join(FIXTURES, 'tasks.jsonl'), '--json'],
    );
    expect(added.code, added.stderr).toBe(0);
    const lines = fs
      .readFileSync(path.join(FIXTURES, 'tasks.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; split?: string; gold: { calls: Array<{ name: string; arguments: Record<string, unknown> }>; answer: string } })
      .filter((t) => (t.split ?? 'train') === 'train');
    const client = new Client({ name: 'reserve-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', 'serve', '--env', 'memory', '--home', memoryHome], stderr: 'pipe' }), { timeout: patience(60_000) });
    try {
      for (const task of lines) {
        expect((await client.callTool({ name: 'start_task', arguments: { task_id: task.id } })).isError, task.id).toBeFalsy();
        for (const c of task.gold.calls) expect((await client.callTool({ name: c.name, arguments: c.arguments })).isError, `${task.id} ${c.name}`).toBeFalsy();
        const done = await client.callTool({ name: 'finish', arguments: { answer: task.gold.answer } });
        expect(done.structuredContent, task.id).toMatchObject({ reward: 1, success: true, end_state: { passed: true } });
      }
    } finally {
      await client.close();
    }
    expect(lines.length).toBe(6);
  });
});

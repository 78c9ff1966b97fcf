// An engine killed with kill -9 runs no exit listener: its stdio MCP servers, each in a process group
// of its own, get only EOF on their stdin, and one that ignores it runs on for ever (issue 23). The
// engine records each group in the data home while it runs; the next engine on that home stops the
// groups whose owner is gone. Here an engine-like process (a connection opened through McpConnection
// with the home named, as createEngine names it) is killed outright, and the next engine opened on
// its home, or the reaper alone, stops what it left.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEngine } from '../../electron/engine/host';
import { groupMembers } from '../../electron/engine/envs/mcp/kill-tree';
import { reapLeftoverServers, serverRecordsDir } from '../../electron/engine/envs/mcp/server-records';
import { testCatalog } from '../helpers/engine';
import { patience } from '../helpers/patience';
import { processGone } from '../helpers/process-gone';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const WRAPPER = source('../fixtures/mcp-wrapped/wrapper.mjs');
const LEAVING_WRAPPER = source('../fixtures/mcp-wrapped/leaving-wrapper.mjs');
const SERVER = source('../fixtures/mcp-wrapped/hung-server.mjs');

let home: string;
let pidFile: string;
let engine: ChildProcess | null = null;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'envace-mcp-leftover-'));
  pidFile = join(home, 'server.pid');
});

afterEach(() => {
  engine?.kill('SIGKILL');
  engine = null;
  // Without the reaper the server outlives the test: do not leave it running.
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    if (!processGone(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(home, { recursive: true, force: true });
});

/** Start an engine-like process with the hung server (which ignores EOF and SIGTERM) behind `wrapper`; the server's group. */
async function engineWithServer(wrapper: string): Promise<number> {
  const spec = { transport: 'stdio', command: process.execPath, args: [wrapper, SERVER], env: { HUNG_SERVER_PID_FILE: pidFile } };
  const script = `
    import { recordServersUnder } from ${JSON.stringify(source('../../electron/engine/envs/mcp/server-records.ts'))};
    import { McpConnection } from ${JSON.stringify(source('../../electron/engine/envs/mcp/connection.ts'))};
    recordServersUnder(${JSON.stringify(home)});
    const conn = await McpConnection.open(${JSON.stringify(spec)}, ${patience(10_000)});
    process.stdout.write(conn.pid + '\\n');
    setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  engine = child;
  return new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += String(chunk);
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.once('exit', (code) => reject(new Error(`the engine-like process exited (${code}) before it had a server`)));
  });
}

/** SIGKILL the engine-like process, as kill -9 does, and wait until it is gone. */
async function killEngine(): Promise<void> {
  const child = engine!;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

/** Reap `home` with `reap` (the reaper itself, or an engine's start); what it logged. */
async function expectReaped(group: number, reap: () => Promise<string[]>): Promise<void> {
  const server = Number(readFileSync(pidFile, 'utf8'));
  expect(processGone(server), 'the server outlived the engine').toBe(false);
  expect(readdirSync(serverRecordsDir(home))).toEqual([`${group}.json`]);

  const logged = await reap();
  await expect.poll(() => processGone(server), { timeout: patience(5_000), interval: 20 }).toBe(true);
  expect(await groupMembers(group)).toEqual([]);
  expect(readdirSync(serverRecordsDir(home))).toEqual([]);
  expect(logged).toEqual([expect.stringMatching(new RegExp(`stopped MCP server group ${group} .*SIGKILL`))]);
}

/** The reaper on its own, with a short grace. */
async function reaper(): Promise<string[]> {
  const logged: string[] = [];
  const results = await reapLeftoverServers(home, { graceMs: patience(300), log: (line) => logged.push(line) });
  expect(results.map((r) => r.outcome)).toEqual(['stopped']);
  return logged;
}

/** The next engine on the home: it reaps as it takes the home, and close waits for that. */
async function nextEngine(): Promise<string[]> {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const next = createEngine({ home, envs: testCatalog });
    expect(next.writable).toBe(true);
    await next.close();
    return errors.mock.calls.map((args) => args.join(' ')).filter((line) => line.includes('MCP server group'));
  } finally {
    errors.mockRestore();
  }
}

describe.skipIf(process.platform === 'win32')('servers left running by an engine killed with kill -9 are stopped by the next one', () => {
  const limit = patience(30_000);

  it(
    'a server behind a wrapper that still runs (the leader, known by its start time), by the next engine to open the home',
    async () => {
      const group = await engineWithServer(WRAPPER);
      await expect.poll(() => existsSync(pidFile), { timeout: patience(5_000), interval: 20 }).toBe(true);
      await killEngine();
      await expectReaped(group, nextEngine);
    },
    limit,
  );

  // Without /proc a group whose leader has exited cannot be told from another one: left alone there.
  it.skipIf(process.platform !== 'linux')(
    'a server whose wrapper has exited (known by the token in its environment)',
    async () => {
      const group = await engineWithServer(LEAVING_WRAPPER);
      await expect.poll(() => processGone(group), { timeout: patience(5_000), interval: 20 }).toBe(true);
      await killEngine();
      await expectReaped(group, reaper);
    },
    limit,
  );
});

// A stdio MCP server started through a wrapper (as `npx`, `uvx` or `sh -c` start one) is stopped
// whole when it hangs: a tool call past its timeout, or a server that never answers initialize, kills
// the wrapper and the real server it spawned, not the wrapper alone. A wrapper that exits by itself
// and leaves the real server running (reparented to pid 1, out of reach of any walk down from the
// wrapper) is stopped through the server's process group: on a time-out, and on a normal close too.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnection } from '../../electron/engine/envs/mcp/connection';
import { descendantPids, groupMembers } from '../../electron/engine/envs/mcp/kill-tree';
import { patience } from '../helpers/patience';
import { processGone } from '../helpers/process-gone';

const WRAPPER = fileURLToPath(new URL('../fixtures/mcp-wrapped/wrapper.mjs', import.meta.url));
const LEAVING_WRAPPER = fileURLToPath(new URL('../fixtures/mcp-wrapped/leaving-wrapper.mjs', import.meta.url));
const SERVER = fileURLToPath(new URL('../fixtures/mcp-wrapped/hung-server.mjs', import.meta.url));

let dir: string;
let pidFile: string;
const toReap: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'envace-mcp-kill-tree-'));
  pidFile = join(dir, 'server.pid');
});

afterEach(() => {
  // Without the tree kill the real server outlives the test: do not leave it running (nor when the
  // test failed before it looked at the pid file).
  if (existsSync(pidFile)) toReap.push(Number(readFileSync(pidFile, 'utf8')));
  for (const pid of toReap.splice(0)) if (!processGone(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function wrapped(mode?: 'silent', wrapper = WRAPPER) {
  return { transport: 'stdio' as const, command: process.execPath, args: [wrapper, SERVER], env: { HUNG_SERVER_PID_FILE: pidFile, ...(mode ? { HUNG_SERVER_MODE: mode } : {}) } };
}

function serverPid(): number {
  expect(existsSync(pidFile), 'the real server started and wrote its pid').toBe(true);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  toReap.push(pid);
  return pid;
}

async function expectGone(pid: number): Promise<void> {
  await expect.poll(() => processGone(pid), { timeout: patience(5_000), interval: 20 }).toBe(true);
}

describe('a hung MCP server behind a wrapper is killed with its whole process tree', () => {
  it('a tool call past its timeout stops the wrapper and the real server it spawned', async () => {
    const conn = await McpConnection.open(wrapped(), patience(10_000));
    const wrapper = conn.pid!;
    const server = serverPid();
    expect(server).not.toBe(wrapper);
    expect(await descendantPids(wrapper)).toContain(server);
    expect(processGone(server)).toBe(false);

    const outcome = await conn.call('hang', {}, { timeoutMs: 300, maxOutputChars: 1_000 });
    expect(outcome.text).toBe('Error: tool call hang timed out after 300 ms.');
    expect(conn.alive).toBe(false);
    await expectGone(wrapper);
    await expectGone(server);
  });

  it('a server that never answers initialize is stopped with its wrapper', async () => {
    // Long enough for both processes to start on a loaded machine; the real server never answers.
    const connectMs = patience(2_000);
    await expect(McpConnection.open(wrapped('silent'), connectMs)).rejects.toThrow(`did not answer initialize within ${connectMs} ms; it was stopped`);
    await expectGone(serverPid());
  });
});

describe('a server whose wrapper has exited by itself is stopped through its process group', () => {
  // A transport that loses the server's stdin when the wrapper exits hangs in open (its initialized
  // notification is never written): fail in seconds, not after the suite's long limit.
  const limit = patience(30_000);

  /** A connection to the hung server behind a wrapper that has exited; the server runs on, orphaned. */
  async function orphaned(): Promise<{ conn: McpConnection; group: number; server: number }> {
    const conn = await McpConnection.open(wrapped(undefined, LEAVING_WRAPPER), patience(10_000));
    const group = conn.pid!; // the wrapper led the group it was spawned in
    await expectGone(group);
    const server = serverPid();
    expect(processGone(server)).toBe(false);
    // The hole a tree walk alone leaves: nothing below the wrapper's pid any more.
    expect(await descendantPids(group)).not.toContain(server);
    expect(await groupMembers(group)).toEqual([server]);
    return { conn, group, server };
  }

  it('a tool call past its timeout stops the orphaned server', async () => {
    const { conn, group, server } = await orphaned();
    const outcome = await conn.call('hang', {}, { timeoutMs: 300, maxOutputChars: 1_000 });
    expect(outcome.text).toBe('Error: tool call hang timed out after 300 ms.');
    expect(conn.alive).toBe(false);
    await expectGone(server);
    expect(await groupMembers(group)).toEqual([]);
  }, limit);

  it('closing the connection stops the orphaned server, which ignores EOF and SIGTERM', async () => {
    const { conn, group, server } = await orphaned();
    await conn.close();
    await expectGone(server);
    expect(await groupMembers(group)).toEqual([]);
  }, limit);

  it('a server that never answers initialize is stopped after its wrapper has left', async () => {
    const connectMs = patience(2_000);
    await expect(McpConnection.open(wrapped('silent', LEAVING_WRAPPER), connectMs)).rejects.toThrow(`did not answer initialize within ${connectMs} ms; it was stopped`);
    await expectGone(serverPid());
  }, limit);
});

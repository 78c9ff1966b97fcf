// The files env served over stdio: its episodes are each a sandbox with a real filesystem MCP server
// of its own, so two open at once never see each other's files, and when the client goes away
// every server the served process started goes with it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');
const home = tempHome('envace-mcp-files-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const TASK = 'files-heldout-4';
const FILE = '/sandbox/docs/alpha_summary.txt';
const TEXT = 'summary of alpha: 7 items checked';

function children(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

/** Episode folders of the files env under the home's scratch root (removed when an episode closes). */
function sandboxes(): string[] {
  const dir = path.join(home, 'tmp', 'files');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

type Out = { text: string; isError: boolean; json: { [k: string]: unknown } | undefined };
async function call(client: Client, name: string, args: { [k: string]: unknown }): Promise<Out> {
  const r = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean; structuredContent?: { [k: string]: unknown } };
  return { text: r.content.map((c) => c.text).join('\n'), isError: r.isError === true, json: r.structuredContent };
}

describe('files served over MCP', () => {
  it('two concurrent episodes keep their own sandbox, and closing the client stops every server', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', 'serve', '--env', 'files', '--split', 'heldout', '--home', home], stderr: 'pipe' });
    const client = new Client({ name: 'files-test', version: '1.0.0' });
    await client.connect(transport, { timeout: patience(60_000) });
    const servePid = transport.pid!;
    let servers: number[] = [];
    try {
      const [a, b] = await Promise.all([call(client, 'start_task', { task_id: TASK }), call(client, 'start_task', { task_id: TASK })]);
      const [ea, eb] = [a.json!.episode_id as string, b.json!.episode_id as string];
      expect((await call(client, 'write_file', { path: FILE, content: TEXT, episode_id: ea })).isError).toBe(false);
      expect((await call(client, 'read_text_file', { path: FILE, episode_id: ea })).text).toBe(TEXT);
      const unseen = await call(client, 'read_text_file', { path: FILE, episode_id: eb });
      expect(unseen.isError).toBe(true);
      expect(unseen.text).toMatch(/^Error/);
      expect((await call(client, 'finish', { episode_id: ea })).json).toMatchObject({ reward: 1, end_state: { passed: true } });
      // B never wrote: its reward and end state say so.
      expect((await call(client, 'finish', { episode_id: eb })).json).toMatchObject({ reward: 0, end_state: { passed: false } });
      // One episode left open when the client goes away.
      await call(client, 'start_task', { task_id: TASK });
      servers = children(servePid);
      expect(servers.length).toBeGreaterThan(0);
      expect(sandboxes().length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    const deadline = Date.now() + 10_000;
    while ((alive(servePid) || servers.some(alive)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(alive(servePid)).toBe(false);
    expect(servers.filter(alive)).toEqual([]);
    // The episode was closed, not killed with its process: its sandbox folder is gone too.
    expect(sandboxes()).toEqual([]);
  });
});

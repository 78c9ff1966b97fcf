// The HTTP door of `envace mcp serve`, in process: web mode's guards (Host, token, path) and the
// session cap, whose evicted session leaves its episodes open for any session holding their ids.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import { EpisodeBook } from '../../../../electron/engine/mcp-serve/episodes';
import { McpHttpError, serveHttp, type RunningMcpHttp } from '../../../../electron/engine/mcp-serve/http';

const env = new RetailEnv({ counts: { train: 3, heldout: 0, ood: 0 } });
let running: RunningMcpHttp | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

/** A raw request with a chosen Host header (fetch will not let a test set one). */
function status(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end('{}');
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'http-unit', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('serveHttp', () => {
  it('refuses a foreign Host, another path and a missing or wrong token', async () => {
    running = await serveHttp(new EpisodeBook(env, 'train'), { token: 'secret' });
    const { port } = running;
    expect(running.url).toBe(`http://127.0.0.1:${port}/mcp?token=secret`);
    expect(await status(port, '/mcp?token=secret', { host: `evil.example:${port}` })).toBe(403);
    expect(await status(port, '/other?token=secret', { host: `127.0.0.1:${port}` })).toBe(404);
    expect(await status(port, '/mcp', { host: `127.0.0.1:${port}` })).toBe(401);
    expect(await status(port, '/mcp?token=secrey', { host: `127.0.0.1:${port}` })).toBe(401);
    expect(await status(port, '/mcp', { host: `127.0.0.1:${port}`, authorization: 'Bearer secrex' })).toBe(401);
    // With the token the request reaches MCP, which refuses a body that is no initialize (400), not us.
    expect(await status(port, '/mcp', { host: `localhost:${port}`, authorization: 'Bearer secret', accept: 'application/json, text/event-stream' })).toBe(400);
  });

  it('listens on loopback only', async () => {
    await expect(serveHttp(new EpisodeBook(env, 'train'), { host: '0.0.0.0' })).rejects.toThrow(McpHttpError);
  });

  it('past the session cap the longest idle session is closed; its episode lives on, by id, in another session', async () => {
    const book = new EpisodeBook(env, 'train');
    running = await serveHttp(book, { maxSessions: 1 });
    const first = await connect(running.url);
    const started = (await first.callTool({ name: 'start_task', arguments: {} })).structuredContent as { episode_id: string };
    expect(book.openCount).toBe(1);
    const second = await connect(running.url);
    expect(running.sessionCount()).toBe(1);
    expect(book.openCount).toBe(1);
    await expect(first.callTool({ name: 'list_tasks', arguments: {} })).rejects.toThrow(/Session not found|404/);
    // Without the id the new session has no episode of its own; with it, it goes on and finishes.
    const anonymous = await second.callTool({ name: 'calculate', arguments: { expression: '1+1' } });
    expect(anonymous).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/no open episode in this session/) }] });
    const call = await second.callTool({ name: 'calculate', arguments: { expression: '1+1', episode_id: started.episode_id } });
    expect(call).toMatchObject({ content: [{ text: '2.0' }] });
    expect(call.isError).toBeFalsy();
    const done = await second.callTool({ name: 'finish', arguments: { episode_id: started.episode_id } });
    expect(done.structuredContent).toMatchObject({ episode_id: started.episode_id, turns: 1 });
    expect(book.openCount).toBe(0);
    await Promise.all([first.close(), second.close()]);
  });
});

// `envace mcp serve --stdio` and a message over the 10 MiB stdio limit, through the MCP SDK's own
// Client: the one request fails at once with the reason, and the session goes on (it used to exit 0
// in silence, the request left waiting and every episode gone).
import path from 'node:path';
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_STDIO_MESSAGE_BYTES } from '../../electron/engine/mcp-serve/stdio-lines';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');
const home = tempHome('envace-mcp-overlong-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('envace mcp serve --stdio with an over-long message', () => {
  it('answers it with a JSON-RPC error naming the limit, says so on stderr, and keeps serving', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', 'serve', '--stdio', '--env', 'mock', '--home', home], stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (d: Buffer) => (stderr += String(d)));
    const client = new Client({ name: 'overlong-test', version: '1.0.0' });
    let closed = false;
    client.onclose = () => (closed = true);
    await client.connect(transport, { timeout: patience(60_000) });
    try {
      const started = (await client.callTool({ name: 'start_task', arguments: {} })) as { isError?: boolean };
      expect(started.isError).not.toBe(true);

      const huge = client.callTool({ name: 'list_tasks', arguments: { split: 'x'.repeat(MAX_STDIO_MESSAGE_BYTES + 1024) } }, undefined, { timeout: patience(30_000) });
      // -32600 with the reason, not the client's own -32001 time-out: the request was answered.
      await expect(huge).rejects.toMatchObject({ code: -32600, message: expect.stringMatching(/message too large: \d+ bytes .*10485760-byte limit/) });
      expect(stderr).toMatch(/envace: mcp: message too large: \d+ bytes.*answered request \d+ with an error; still serving/);

      // The same session, its episode still open: the server did not go away.
      expect(closed).toBe(false);
      const listed = (await client.callTool({ name: 'list_tasks', arguments: { split: 'train' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(listed.isError, listed.content[0]?.text).not.toBe(true);
      const finished = (await client.callTool({ name: 'finish', arguments: {} })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(finished.isError, finished.content[0]?.text).not.toBe(true);
    } finally {
      await client.close();
    }
  }, patience(120_000));
});

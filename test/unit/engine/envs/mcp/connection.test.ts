import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectError, McpConnection, TOOL_LIST_LIMITS, truncateOutput } from '../../../../../electron/engine/envs/mcp/connection';

const FIXTURE = fileURLToPath(new URL('./fixture-server.mjs', import.meta.url));
const limits = { timeoutMs: 2_000, maxOutputChars: 100 };
const open: McpConnection[] = [];

async function fixture(): Promise<McpConnection> {
  const conn = await McpConnection.open({ transport: 'stdio', command: process.execPath, args: [FIXTURE] });
  open.push(conn);
  return conn;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('McpConnection over stdio', () => {
  it('reads the tool list with each tool schema', async () => {
    const conn = await fixture();
    const tools = await conn.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'big', 'sleep', 'crash', 'note', 'notes', 'clear_notes', 'deny', 'reset_once']);
    expect(tools[0]).toEqual({
      name: 'echo',
      description: 'Echo the text back.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
  });

  it('returns tool text and caps oversized output with a marker', async () => {
    const conn = await fixture();
    expect(await conn.call('echo', { text: 'hi' }, limits)).toEqual({ text: 'echo: hi', isError: false, failure: null });
    const big = await conn.call('big', { n: 250 }, limits);
    expect(big.text).toBe(`${'x'.repeat(100)}\n[output truncated: 150 more characters]`);
  });

  it('a call past its timeout becomes an error observation and the server, which may be hung, is stopped', async () => {
    const conn = await fixture();
    const pid = conn.pid!;
    const slow = await conn.call('sleep', { ms: 5_000 }, { ...limits, timeoutMs: 200 });
    expect(slow.isError).toBe(true);
    expect(slow.text).toBe('Error: tool call sleep timed out after 200 ms.');
    expect(slow.failure).toMatch(/timed out/);
    expect(conn.alive).toBe(false);
    expect(() => process.kill(pid, 0)).toThrow();
    expect((await conn.call('echo', { text: 'still here' }, limits)).text).toMatch(/^Error: the tool server is not running \(tool call sleep timed out after 200 ms; the server was stopped\)/);
  });

  it('an error result (isError) reaches the agent as an "Error:" observation', async () => {
    const conn = await fixture();
    const denied = await conn.call('deny', {}, limits);
    expect(denied).toEqual({ text: 'Error: Access denied', isError: true, failure: null });
  });

  it('tools/list honours the timeout (then stops the server) and a server that pages forever is cut off', async () => {
    const hung = await McpConnection.open({ transport: 'stdio', command: process.execPath, args: [FIXTURE], env: { FIXTURE_LIST: 'hang' } });
    const started = Date.now();
    await expect(hung.listTools(300)).rejects.toThrow('the server did not answer tools/list within 300 ms; it was stopped');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(hung.alive).toBe(false);
    const endless = await McpConnection.open({ transport: 'stdio', command: process.execPath, args: [FIXTURE], env: { FIXTURE_LIST: 'endless' } });
    try {
      await expect(endless.listTools(2_000)).rejects.toThrow(`the server kept paging its tool list past ${TOOL_LIST_LIMITS.maxPages} pages; cut off`);
    } finally {
      await endless.close();
    }
  });

  it('a server that dies during a call gives an error observation, then reports itself not running', async () => {
    const conn = await fixture();
    const crash = await conn.call('crash', {}, limits);
    expect(crash.isError).toBe(true);
    expect(crash.text).toMatch(/^Error: the tool server stopped during crash/);
    expect(conn.alive).toBe(false);
    const after = await conn.call('echo', { text: 'x' }, limits);
    expect(after.text).toMatch(/^Error: the tool server is not running/);
  });

  it('a command that is not an MCP server fails to open with a typed error', async () => {
    await expect(
      McpConnection.open({ transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(2)'] }, 3_000),
    ).rejects.toBeInstanceOf(McpConnectError);
  });
});

describe('truncateOutput', () => {
  it('keeps short text and cuts long text at the cap', () => {
    expect(truncateOutput('abc', 3)).toBe('abc');
    expect(truncateOutput('abcd', 3)).toBe('abc\n[output truncated: 1 more characters]');
  });
});

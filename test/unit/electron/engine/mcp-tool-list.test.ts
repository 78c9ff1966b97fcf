import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpConnectError, McpConnection } from '../../../../electron/engine/envs/mcp/connection';
import { tempHome } from '../../../helpers/engine';

const dir = tempHome('envace-mcp-list-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// A stdio MCP server that speaks just enough protocol to list tools with broken definitions.
const server = path.join(dir, 'bad-tools.mjs');
fs.writeFileSync(
  server,
  `import readline from 'node:readline';
const tools = JSON.parse(process.argv[2]);
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bad', version: '1' } } });
  else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools } });
  else if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, result: {} });
});
`,
);

async function listError(tools: unknown[]): Promise<Error> {
  const conn = await McpConnection.open({ transport: 'stdio', command: process.execPath, args: [server, JSON.stringify(tools)] });
  try {
    return await conn.listTools().then(
      () => {
        throw new Error('expected listTools to fail');
      },
      (error: Error) => error,
    );
  } finally {
    await conn.close();
  }
}

describe('McpConnection.listTools with an invalid tool definition', () => {
  it('names the tool and what is wrong in one sentence instead of a zod dump', async () => {
    const error = await listError([
      { name: 'ok', inputSchema: { type: 'object' } },
      { name: 'lookup', description: 'd', inputSchema: { type: 'array' } },
    ]);
    expect(error).toBeInstanceOf(McpConnectError);
    expect(error.message).toBe('the server lists tool "lookup" with an invalid inputSchema.type: Invalid input: expected "object"');
  });

  it('counts the other problems and falls back to the position when the name itself is bad', async () => {
    const error = await listError([
      { name: 5, inputSchema: 'nope' },
      { name: 'x', inputSchema: { type: 'object', properties: 5 } },
    ]);
    expect(error.message).toMatch(/^the server lists tool #1 with an invalid \w+: .* \(and 2 more problems in the list\)$/);
    expect(error.message).not.toContain('\n');
  });
});

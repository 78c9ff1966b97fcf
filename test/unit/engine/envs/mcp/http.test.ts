import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolEnv } from '../../../../../electron/engine/envs/mcp/env';
import { runEpisode } from '../household/drive';

/** A stateless streamable-HTTP MCP server with one tool, `add`. */
function mcpServer(): Server {
  const server = new Server({ name: 'http-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'add', description: 'Add two numbers.', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { a, b } = (req.params.arguments ?? {}) as { a: number; b: number };
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  return server;
}

let http: HttpServer;
let url: string;

beforeAll(async () => {
  http = createServer(async (req, res) => {
    // Stateless mode: a fresh server and transport per request, as the SDK documents.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = mcpServer();
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((resolve) => http.close(resolve));
});

describe('McpToolEnv over streamable HTTP', () => {
  it('lists the tools and runs a task through the URL', async () => {
    const task = {
      id: 'sum',
      env: 'adder',
      split: 'train' as const,
      instruction: 'What is 2 + 3?',
      gold: { calls: [{ name: 'add', arguments: { a: 2, b: 3 } }], answer: '5' },
      checklist: [
        { kind: 'call' as const, weight: 1, name: 'add', args: { a: 2, b: 3 } },
        { kind: 'answer' as const, weight: 1, expected: [5], match: 'numeric' as const },
      ],
      maxTurns: 3,
    };
    const env = await McpToolEnv.create({ id: 'adder', server: { transport: 'http', url }, tasks: [task] });
    try {
      expect(env.tools().map((t) => t.name)).toEqual(['add']);
      const run = await runEpisode(env, task, env.expert(task));
      expect(run.observations[1]).toBe('5');
      expect(run.checklist.score).toBe(1);
      expect(run.check.passed).toBe(true);
    } finally {
      await env.close();
    }
  });
});

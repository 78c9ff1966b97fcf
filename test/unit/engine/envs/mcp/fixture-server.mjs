// A tiny MCP server for adapter tests: echo, an oversized answer, a slow tool and a tool that kills the process.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const tools = [
  { name: 'echo', description: 'Echo the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'big', description: 'Return n characters.', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
  { name: 'sleep', description: 'Wait ms milliseconds.', inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] } },
  { name: 'crash', description: 'Exit the server process.', inputSchema: { type: 'object', properties: {} } },
];

const server = new Server({ name: 'fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const args = req.params.arguments ?? {};
  switch (req.params.name) {
    case 'echo':
      return { content: [{ type: 'text', text: `echo: ${args.text}` }] };
    case 'big':
      return { content: [{ type: 'text', text: 'x'.repeat(Number(args.n)) }] };
    case 'sleep':
      await new Promise((r) => setTimeout(r, Number(args.ms)));
      return { content: [{ type: 'text', text: 'slept' }] };
    case 'crash':
      process.stderr.write('fixture: crashing on request\n');
      process.exit(3);
      break; // unreachable: exit never returns
    default:
      return { content: [{ type: 'text', text: `Tool ${req.params.name} not found` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());

// A tiny MCP server for adapter tests: echo, an oversized answer, a slow tool, a tool that kills the
// process, a little state (notes, with a reset tool) and a tool that refuses (isError).
// FIXTURE_LIST=endless pages its tool list forever; FIXTURE_LIST=hang never answers tools/list.
// FIXTURE_STARTS=<file> counts start-ups in the file and dies at start-up after the first (registration
// succeeds, every episode's server then fails). reset_once is a reset tool that kills the process from its second call.
// FIXTURE_DIE_NEXT=<file>: while the file exists it holds how many more start-ups succeed before one
// dies; that one removes the file (a test arms it again for the next phase it wants a failure in).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

if (process.env.FIXTURE_STARTS) {
  appendFileSync(process.env.FIXTURE_STARTS, 'x');
  if (readFileSync(process.env.FIXTURE_STARTS, 'utf8').length > 1) {
    process.stderr.write('fixture: refusing to start again\n');
    process.exit(2);
  }
}
if (process.env.FIXTURE_DIE_NEXT && existsSync(process.env.FIXTURE_DIE_NEXT)) {
  const left = Number(readFileSync(process.env.FIXTURE_DIE_NEXT, 'utf8'));
  if (left > 0) writeFileSync(process.env.FIXTURE_DIE_NEXT, String(left - 1));
  else {
    rmSync(process.env.FIXTURE_DIE_NEXT);
    process.stderr.write('fixture: dying at start-up as armed\n');
    process.exit(5);
  }
}
let resets = 0;

const tools = [
  { name: 'echo', description: 'Echo the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'big', description: 'Return n characters.', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
  { name: 'sleep', description: 'Wait ms milliseconds.', inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] } },
  { name: 'crash', description: 'Exit the server process.', inputSchema: { type: 'object', properties: {} } },
  { name: 'note', description: 'Remember a note.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'notes', description: 'The notes so far, as a JSON array.', inputSchema: { type: 'object', properties: {} } },
  { name: 'clear_notes', description: 'Forget every note.', inputSchema: { type: 'object', properties: {} } },
  { name: 'deny', description: 'Always refused.', inputSchema: { type: 'object', properties: {} } },
  { name: 'reset_once', description: 'A reset that works once, then kills the server.', inputSchema: { type: 'object', properties: {} } },
];
const notes = [];

const server = new Server({ name: 'fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async (req) => {
  if (process.env.FIXTURE_LIST === 'hang') return new Promise(() => {});
  if (process.env.FIXTURE_LIST === 'endless') return { tools: [], nextCursor: String(Number(req.params?.cursor ?? 0) + 1) };
  return { tools };
});
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
    case 'note':
      notes.push(String(args.text));
      return { content: [{ type: 'text', text: `noted (${notes.length})` }] };
    case 'notes':
      return { content: [{ type: 'text', text: JSON.stringify(notes) }] };
    case 'reset_once':
      if (++resets > 1) process.exit(4);
      notes.length = 0;
      return { content: [{ type: 'text', text: 'reset' }] };
    case 'clear_notes':
      notes.length = 0;
      return { content: [{ type: 'text', text: 'cleared' }] };
    case 'deny':
      return { content: [{ type: 'text', text: 'Access denied' }], isError: true };
    default:
      return { content: [{ type: 'text', text: `Tool ${req.params.name} not found` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());

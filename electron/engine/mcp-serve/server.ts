/**
 * One MCP session over an EpisodeBook: the SDK's low-level `Server`, because our tool schemas are
 * JSON Schema written by each env (McpServer.registerTool wants zod shapes). Tool calls route to
 * the episode tools or, for the env's own tools, to the book; every failure comes back as an
 * isError result in words, never as a protocol error, so a client's agent sees it as an observation.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SPLITS, type JsonValue, type Split } from '../envs/types';
import { EpisodeRequestError, type EpisodeBook } from './episodes';
import { overLongReply, StdioLineGuard } from './stdio-lines';
import { EPISODE_ID, isEpisodeTool, servedTools, serverInstructions } from './tools';

const SERVER_VERSION = '0.1.0';

type Args = { [key: string]: JsonValue };

function json(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value as { [key: string]: unknown } };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message.startsWith('Error') ? message : `Error: ${message}` }], isError: true };
}

function optionalString(args: Args, key: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new EpisodeRequestError(`${key} must be a string, got ${JSON.stringify(v)}`);
  return v;
}

async function callEpisodeTool(book: EpisodeBook, session: string, name: string, args: Args): Promise<CallToolResult> {
  switch (name) {
    case 'start_task': {
      const seed = args.seed;
      if (seed !== undefined && seed !== null && typeof seed !== 'number') throw new EpisodeRequestError(`seed must be an integer, got ${JSON.stringify(seed)}`);
      return json(await book.start(session, { taskId: optionalString(args, 'task_id'), seed: seed ?? undefined }));
    }
    case 'finish':
      return json(await book.finish(session, { episodeId: optionalString(args, EPISODE_ID), answer: optionalString(args, 'answer') }));
    default: {
      const split = optionalString(args, 'split') ?? book.split;
      if (!(SPLITS as readonly string[]).includes(split)) throw new EpisodeRequestError(`split must be one of ${SPLITS.join(', ')}, got "${split}"`);
      return json({ split, tasks: book.listTasks(split as Split).map(({ id, instruction }) => ({ id, instruction })) });
    }
  }
}

/** An SDK server for one client session; `session` keys the episodes it may address. */
export function sessionServer(book: EpisodeBook, session: string): Server {
  const server = new Server(
    { name: `envace-${book.env.id}`, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: serverInstructions(book.env, book.split) },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: servedTools(book.env, book.split, book.taskTools(session)) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Args;
    try {
      if (isEpisodeTool(name)) {
        const before = book.taskTools(session).length;
        const result = await callEpisodeTool(book, session, name, args);
        // A task that brings its own tools changes what this session lists, while its episode is open.
        if (book.taskTools(session).length !== before) await server.sendToolListChanged().catch(() => undefined);
        return result;
      }
      const { [EPISODE_ID]: episodeId, ...envArgs } = args;
      if (episodeId !== undefined && typeof episodeId !== 'string') throw new EpisodeRequestError(`${EPISODE_ID} must be a string, got ${JSON.stringify(episodeId)}`);
      const out = await book.call(session, name, envArgs, episodeId);
      return { content: [{ type: 'text', text: out.text }], ...(out.isError ? { isError: true } : {}) };
    } catch (error) {
      if (error instanceof EpisodeRequestError) return failure(error.message);
      // An env that throws is a bug on our side; the client still gets words, not a dropped request.
      return failure(`internal error in ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return server;
}

/**
 * Serve over this process's stdin/stdout until the client closes stdin (or a signal comes), then
 * close every episode. stdout belongs to the protocol from here on: say nothing on it. A message over
 * the size limit is dropped and answered with an error (stdio-lines.ts), and serving goes on: a
 * client sees its one request fail with the reason, not the server vanish with every episode.
 */
export async function serveStdio(book: EpisodeBook, stop: Promise<void> = new Promise(() => {})): Promise<void> {
  const server = sessionServer(book, 'stdio');
  let transport: StdioServerTransport | null = null;
  const lines = new StdioLineGuard((line) => {
    const { reply, log } = overLongReply(line);
    process.stderr.write(`${log}\n`);
    if (reply) void transport?.send(reply).catch(() => undefined);
  });
  transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: lines.transportBufferBytes });
  // Other refusals (a line that is not JSON-RPC) are dropped by the SDK too: say so on stderr.
  server.onerror = (error) => process.stderr.write(`envace: mcp: ${error.message.split('\n')[0]!.slice(0, 300)}\n`);
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    transport.onclose = resolve;
  });
  process.stdin.pipe(lines);
  await server.connect(transport);
  await Promise.race([ended, stop]);
  await server.close().catch(() => undefined);
  process.stdin.unpipe(lines);
  process.stdin.pause();
  await book.closeAll();
}

/**
 * One live connection to an MCP server (a spawned stdio process or a streamable-HTTP URL) through
 * the official client SDK. Calls carry a timeout and an output cap; a server that dies is noticed
 * and reported as an outcome, never thrown at the caller.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { isErrorObservation } from '../error-observation';
import type { JsonValue, ToolSpec } from '../types';
import { serverProcessTransport, type ServerProcessTransport } from './server-process';

export type McpServerSpec =
  | { transport: 'stdio'; command: string; args?: string[]; cwd?: string; env?: Record<string, string> }
  | { transport: 'http'; url: string };

export interface McpCallLimits {
  /** Longest a single tool call may take before it becomes a timeout error observation. */
  timeoutMs: number;
  /** Longest observation text kept; the rest is cut and replaced by a marker. */
  maxOutputChars: number;
}

export const DEFAULT_CALL_LIMITS: McpCallLimits = { timeoutMs: 10_000, maxOutputChars: 8_000 };

/**
 * Longest a server may take to start (spawn, then answer initialize): the registration's timeout, as
 * `--timeout-ms` asks, but never under MIN_STARTUP_MS, since starting a process alone can take longer
 * than a short tool-call timeout on a busy machine.
 */
export const MIN_STARTUP_MS = 2_000;
export function startupTimeoutMs(limits: McpCallLimits): number {
  return Math.max(limits.timeoutMs, MIN_STARTUP_MS);
}

/** `tools/list` is paged by the server; a server that never stops paging is cut off here. */
export const TOOL_LIST_LIMITS = { maxPages: 50, maxTools: 1_000, maxChars: 2_000_000 } as const;

export interface McpCallOutcome {
  text: string;
  /** The server answered with an error result (or the call failed). */
  isError: boolean;
  /** The failure was the connection itself: timeout, or the server went away. */
  failure: string | null;
}

export class McpConnectError extends Error {
  override name = 'McpConnectError';
}

export function truncateOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[output truncated: ${text.length - maxChars} more characters]`;
}

type ContentPart = { type: string; text?: string; mimeType?: string; uri?: string; resource?: { uri?: string; text?: string } };

/** MCP results are lists of typed parts; an agent sees their text, and a placeholder for binary parts. */
function contentText(content: readonly ContentPart[]): string {
  return content
    .map((part) => {
      if (part.type === 'text') return part.text ?? '';
      if (part.type === 'resource') return part.resource?.text ?? `[resource ${part.resource?.uri ?? ''}]`;
      if (part.type === 'resource_link') return `[resource ${part.uri ?? ''}]`;
      return `[${part.type}${part.mimeType ? ` ${part.mimeType}` : ''}]`;
    })
    .join('\n');
}

function describeSpec(spec: McpServerSpec): string {
  return spec.transport === 'stdio' ? [spec.command, ...(spec.args ?? [])].join(' ') : spec.url;
}

/** The transport to `spec`, and the local process behind it when there is one. */
function transportFor(spec: McpServerSpec): { transport: Transport; server: ServerProcessTransport | null } {
  if (spec.transport === 'http') return { transport: new StreamableHTTPClientTransport(new URL(spec.url)), server: null };
  const server = serverProcessTransport({ command: spec.command, args: spec.args ?? [], cwd: spec.cwd, env: { ...getDefaultEnvironment(), ...(spec.env ?? {}) } });
  return { transport: server, server };
}

export class McpConnection {
  private closedReason: string | null = null;
  private stderrTail = '';

  private constructor(
    readonly spec: McpServerSpec,
    private readonly client: Client,
    /** The local server process (stdio), null for a server reached by URL. */
    private readonly server: ServerProcessTransport | null,
  ) {}

  static async open(spec: McpServerSpec, connectTimeoutMs = 15_000): Promise<McpConnection> {
    const { transport, server } = transportFor(spec);
    const client = new Client({ name: 'envace-workbench', version: '0.1.0' });
    const conn = new McpConnection(spec, client, server);
    // Keep the end of the server's stderr: it usually says why a server died.
    server?.stderr?.on('data', (chunk: Buffer) => {
      conn.stderrTail = (conn.stderrTail + chunk.toString()).slice(-2000);
    });
    try {
      await client.connect(transport, { timeout: connectTimeoutMs });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const timedOut = /timed out|timeout/i.test(message);
      // A server that never answered may not stop when asked either: it is killed, not waited for.
      if (timedOut) await conn.kill('it did not start in time');
      await transport.close().catch(() => undefined);
      const why = timedOut ? `it did not answer initialize within ${connectTimeoutMs} ms; it was stopped` : message;
      throw new McpConnectError(`could not start MCP server "${describeSpec(spec)}": ${why}${conn.stderrTail ? ` (stderr: ${conn.stderrTail.trim()})` : ''}`);
    }
    client.onclose = () => {
      conn.closedReason ??= 'the server closed the connection';
    };
    return conn;
  }

  get alive(): boolean {
    return this.closedReason === null;
  }

  /** Why the connection is gone, or null while alive. */
  get deathReason(): string | null {
    return this.closedReason;
  }

  /** The server process id (stdio only). */
  get pid(): number | null {
    return this.server?.pid ?? null;
  }

  /** Every tool, across pages, within `timeoutMs` per page and the TOOL_LIST_LIMITS caps. */
  async listTools(timeoutMs = DEFAULT_CALL_LIMITS.timeoutMs): Promise<ToolSpec[]> {
    const out: ToolSpec[] = [];
    let cursor: string | undefined;
    let chars = 0;
    for (let page = 0; ; page++) {
      if (page >= TOOL_LIST_LIMITS.maxPages) throw new McpConnectError(`the server kept paging its tool list past ${TOOL_LIST_LIMITS.maxPages} pages; cut off`);
      let result: Awaited<ReturnType<Client['listTools']>>;
      try {
        result = await this.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (/timed out|timeout/i.test(message)) {
          await this.kill(`tools/list did not answer within ${timeoutMs} ms`);
          throw new McpConnectError(`the server did not answer tools/list within ${timeoutMs} ms; it was stopped`);
        }
        const invalid = await this.describeInvalidToolList(err, cursor, timeoutMs);
        if (invalid) throw new McpConnectError(invalid);
        throw err;
      }
      chars += JSON.stringify(result.tools).length;
      if (chars > TOOL_LIST_LIMITS.maxChars) throw new McpConnectError(`the server's tool list is larger than ${TOOL_LIST_LIMITS.maxChars} characters; cut off`);
      for (const tool of result.tools) {
        // "$schema" is noise in a prompt and in our validator; everything else is kept as the server wrote it.
        const { $schema: _drop, ...parameters } = tool.inputSchema as { [key: string]: unknown };
        out.push({ name: tool.name, description: tool.description ?? '', parameters });
      }
      if (out.length > TOOL_LIST_LIMITS.maxTools) throw new McpConnectError(`the server lists more than ${TOOL_LIST_LIMITS.maxTools} tools; cut off`);
      cursor = result.nextCursor;
      if (!cursor) return out;
    }
  }

  /**
   * The SDK refuses a whole tools/list answer with its raw zod issues (a JSON dump of paths).
   * Word the first issue as one sentence naming the tool, whose name comes from asking again
   * without the SDK's schema. Null when the error is not a schema refusal.
   */
  private async describeInvalidToolList(err: unknown, cursor: string | undefined, timeoutMs: number): Promise<string | null> {
    const found = (err as { issues?: unknown } | null)?.issues;
    const issues: unknown[] = Array.isArray(found) ? found : [];
    const first = issues[0] as { path?: unknown; message?: unknown } | undefined;
    if (!first || !Array.isArray(first.path) || first.path[0] !== 'tools' || typeof first.path[1] !== 'number') return null;
    const [, index, ...field] = first.path as [string, number, ...unknown[]];
    const raw = await this.client
      .request({ method: 'tools/list', params: cursor ? { cursor } : undefined }, z.looseObject({ tools: z.array(z.unknown()) }), { timeout: timeoutMs })
      .then((page) => page.tools[index] as { name?: unknown } | undefined)
      .catch(() => undefined);
    const tool = typeof raw?.name === 'string' ? `tool "${raw.name.slice(0, 100)}"` : `tool #${index + 1}`;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''} in the list)` : '';
    return `the server lists ${tool} with an invalid ${field.length ? field.join('.') : 'definition'}: ${String(first.message ?? 'not valid')}${more}`;
  }

  async call(name: string, args: { [key: string]: JsonValue }, limits: McpCallLimits): Promise<McpCallOutcome> {
    if (!this.alive) {
      return { text: `Error: the tool server is not running (${this.closedReason}).`, isError: true, failure: this.closedReason };
    }
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, { timeout: limits.timeoutMs });
      const content = Array.isArray(result.content) ? (result.content as ContentPart[]) : [];
      const text = content.length > 0 ? contentText(content) : JSON.stringify(result.structuredContent ?? result.toolResult ?? '');
      const isError = result.isError === true;
      // The agent must see a rejected call as an error, however the server words it.
      const shown = isError && !isErrorObservation(text) ? `Error: ${text}` : text;
      return { text: truncateOutput(shown, limits.maxOutputChars), isError, failure: null };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/timed out|timeout/i.test(message)) {
        // A server that stops answering may never answer again: stop it, so that the next episode
        // gets a fresh process instead of waiting out the same hang.
        const failure = `tool call ${name} timed out after ${limits.timeoutMs} ms`;
        await this.kill(`${failure}; the server was stopped`);
        return { text: `Error: ${failure}.`, isError: true, failure };
      }
      if (!this.alive || /closed|EPIPE|not connected/i.test(message)) {
        this.closedReason ??= `the server stopped: ${message}`;
        const stderr = this.stderrTail.trim() ? ` Last server output: ${this.stderrTail.trim().slice(-300)}` : '';
        return { text: `Error: the tool server stopped during ${name} (${message}).${stderr}`, isError: true, failure: this.closedReason };
      }
      // A protocol-level error from a live server (bad params and the like) is an ordinary error result.
      return { text: truncateOutput(`Error: ${message}`, limits.maxOutputChars), isError: true, failure: null };
    }
  }

  /**
   * Stop the connection; a local server is asked to exit (EOF), then it and every process it started
   * are signalled until none is left (server-process.ts).
   */
  async close(): Promise<void> {
    this.closedReason ??= 'closed by the client';
    await this.client.close().catch(() => undefined);
  }

  /**
   * Stop a server that may be hung (even SIGSTOPped): SIGKILL it and every process it started (a
   * server launched through `npx`, `uvx` or `sh -c` is a wrapper's child, or, once the wrapper has
   * exited, an orphan in the server's process group), then close the client side.
   */
  async kill(reason: string): Promise<void> {
    this.closedReason ??= reason;
    await this.server?.kill().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}

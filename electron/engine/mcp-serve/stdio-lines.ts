/**
 * What `mcp serve --stdio` reads before the MCP SDK does: stdin cut into whole lines (one JSON-RPC
 * message each), with a line longer than the limit dropped and reported instead of passed on. The
 * SDK's own stdio transport, on such a line, emits an error nobody sees and closes: the server then
 * exited 0 in silence, every open episode lost. Here only that message is lost: the stream picks up
 * again at the next newline and the caller answers the request (`overLongReply`).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Longest message (one line, without its newline) read from stdin, in bytes: the SDK's own stdio limit. */
export const MAX_STDIO_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** How much of each end of a dropped line is kept, to find the request's id. */
const KEPT_END_BYTES = 4096;

export interface OverLongLine {
  /** Size of the line in bytes, its newline not counted. */
  bytes: number;
  /** Its first and last bytes (KEPT_END_BYTES of each), as text. */
  head: string;
  tail: string;
}

export class StdioLineGuard extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  constructor(
    private readonly onOverLong: (line: OverLongLine) => void,
    readonly maxBytes = MAX_STDIO_MESSAGE_BYTES,
  ) {
    super();
  }

  /** What the SDK's read buffer must hold: one whole line and its newline (lines are pushed one by one). */
  get transportBufferBytes(): number {
    return this.maxBytes + 1;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start);
      this.addToLine(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) break;
      this.endLine();
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // A last line without its newline: the SDK would never read it either, but an over-long one is still reported.
    if (this.dropping) this.endLine();
    else if (this.pendingBytes > 0) this.push(Buffer.concat(this.pending));
    done();
  }

  private addToLine(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.dropping) {
      this.dropping.bytes += piece.length;
      this.dropping.tail = lastBytes(Buffer.concat([this.dropping.tail, piece]));
      return;
    }
    if (this.pendingBytes + piece.length <= this.maxBytes) {
      this.pending.push(piece);
      this.pendingBytes += piece.length;
      return;
    }
    const sofar = Buffer.concat([...this.pending, piece]);
    this.dropping = { bytes: sofar.length, head: sofar.subarray(0, KEPT_END_BYTES), tail: lastBytes(sofar) };
    this.pending = [];
    this.pendingBytes = 0;
  }

  private endLine(): void {
    if (this.dropping) {
      const { bytes, head, tail } = this.dropping;
      this.dropping = null;
      this.onOverLong({ bytes, head: head.toString('utf8'), tail: tail.toString('utf8') });
      return;
    }
    this.pending.push(Buffer.from('\n'));
    this.push(Buffer.concat(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length <= KEPT_END_BYTES ? buffer : Buffer.from(buffer.subarray(buffer.length - KEPT_END_BYTES));
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,200}")`;
/** `{"jsonrpc":"2.0","id":7,"method":…`: the id among the first top-level keys. */
const ID_AT_HEAD = new RegExp(String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"]{0,200}"\s*,)*\s*"id"\s*:\s*${ID}`);
/** `…,"jsonrpc":"2.0","id":7}`: the id as the last top-level key (the SDK's Client writes it so). */
const ID_AT_TAIL = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`);
/** A request (or notification) names its method near one end: first keys, or last ones. */
const METHOD = /"method"\s*:\s*"/;

/** The id of the request a dropped line carried, where its ends show one; null for a notification or what cannot be told. */
export function overLongRequestId(line: Pick<OverLongLine, 'head' | 'tail'>): RequestId | null {
  if (!METHOD.test(line.head.slice(0, 512)) && !METHOD.test(line.tail.slice(-512))) return null;
  const found = ID_AT_HEAD.exec(line.head) ?? ID_AT_TAIL.exec(line.tail);
  if (!found) return null;
  try {
    const id = JSON.parse(found[1]!) as unknown;
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null;
  } catch {
    return null;
  }
}

/**
 * The answer to a dropped request (JSON-RPC "Invalid Request", with its id so that the client's call
 * fails now with the reason instead of waiting out its timeout), or null when there is no id to
 * answer; and the line for stderr either way.
 */
export function overLongReply(line: OverLongLine, maxBytes = MAX_STDIO_MESSAGE_BYTES): { reply: JSONRPCMessage | null; log: string } {
  const id = overLongRequestId(line);
  const reason = `message too large: ${line.bytes} bytes on one line, over the ${maxBytes}-byte limit of one MCP stdio message; it was dropped`;
  const reply: JSONRPCMessage | null = id === null ? null : { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: `${reason} (send smaller arguments)` } };
  return { reply, log: `envace: mcp: ${reason}${id === null ? ' (no request id found in it to answer)' : `; answered request ${JSON.stringify(id)} with an error`}; still serving` };
}

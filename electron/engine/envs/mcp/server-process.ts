/**
 * The stdio transport of a local MCP server, and the way to stop the server whole.
 *
 * A server is often a wrapper (`npx`, `uvx`, `sh -c`) around the real one, and a wrapper may exit by
 * itself (`sh -c 'server &'`, a shim that does not wait) while the real server runs on with pid 1 as
 * its parent, reading the wrapper's stdin and writing its stdout: no walk down from the wrapper's pid
 * finds it then. So on POSIX the server is spawned as the leader of its own
 * process group (`detached`: setsid), which everything it starts stays in unless it leaves on
 * purpose, and both stopping paths reach the group as well as the tree below the server:
 * - close (episode end, env dispose, engine shutdown): end its stdin, give it GRACE_MS to exit, then
 *   SIGTERM the group, GRACE_MS more, then SIGKILL the group and the tree (killProcessTree);
 * - kill (a timed-out call, a server that never answered initialize): SIGKILL at once.
 * The SDK's StdioClientTransport spawns with fixed options (no `detached`), hence this transport;
 * it frames messages with the SDK's own ReadBuffer and serializeMessage.
 *
 * What outlives the engine. A detached server holds no more of the engine's event loop than any
 * child does (its pipes), and the engine closes its servers on shutdown, so a normal exit stops every
 * group. A group still open when the process exits by process.exit() or an uncaught exception is
 * SIGKILLed from a synchronous 'exit' listener (there is no time to be gentle there). When the engine
 * dies without running JavaScript (kill -9, a crash, a second Ctrl+C, which Node's default handler
 * ends at once), nothing signals the groups: each server sees EOF on its stdin, which ends a
 * well-behaved server, but what ignores it (and any process that server started) keeps running. Being
 * in their own session, these processes no longer get the terminal's Ctrl+C or hang-up either. So each
 * group is recorded in the data home while it runs, and the next engine on that home stops the groups
 * of an engine that is gone (server-records.ts).
 *
 * Windows (untested here): no process groups; the SDK's transport (its cross-spawn finds `npx.cmd`
 * and the like) and `taskkill /T /F` on the pid it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, type Stream, type Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { groupMembers, killProcessTree, signalGroup } from './kill-tree';
import { GroupRecord } from './server-records';

export interface ServerProcessParams {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
}

/** A transport that runs the server as a local process. */
export interface ServerProcessTransport extends Transport {
  /** The spawned process's pid (a wrapper's, when the server is launched through one); null before spawn. */
  readonly pid: number | null;
  /** The server's stderr, readable from construction on, so nothing it says early is lost. */
  readonly stderr: Stream | null;
  /** SIGKILL the server and every process it started (it may be hung, even stopped), then close. */
  kill(): Promise<void>;
}

/** How long a closing server is given after EOF on its stdin, and again after SIGTERM. */
const GRACE_MS = 2_000;
const POLL_MS = 100;

export function serverProcessTransport(params: ServerProcessParams): ServerProcessTransport {
  return process.platform === 'win32' ? windowsTransport(params) : new GroupedStdioTransport(params);
}

/** Groups spawned and not yet stopped by close or kill, with their records in the data home. */
const openGroups = new Map<number, GroupRecord | null>();
let exitListener = false;

function rememberGroup(group: number, record: GroupRecord | null): void {
  openGroups.set(group, record);
  if (exitListener) return;
  exitListener = true;
  // Only synchronous work can run in an 'exit' listener, and a signal is synchronous.
  process.on('exit', () => {
    for (const [open, openRecord] of openGroups) {
      signalGroup(open, 'SIGKILL');
      openRecord?.remove();
    }
  });
}

class GroupedStdioTransport implements ServerProcessTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly stderr = new PassThrough();
  private child: ChildProcess | null = null;
  /** The leader's stdin, held here rather than by `child` (see start). */
  private stdin: Writable | null = null;
  private readonly readBuffer = new ReadBuffer();
  /** The group's id (the leader's pid), from spawn until close has stopped it. */
  private group: number | null = null;
  /** The leader has exited: it was reaped, and its pid may already be another process's. */
  private leaderExited = false;
  /** Every end of the leader's stdio is closed: no process can answer on it any more. */
  private stdioClosed = false;
  private closing: Promise<void> | null = null;
  /** The group's record in the data home, for the next engine should this one be killed outright (server-records.ts). */
  private readonly record = GroupRecord.begin();

  constructor(private readonly params: ServerProcessParams) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the server process was already started');
    return new Promise((resolve, reject) => {
      const child: ChildProcess = spawn(this.params.command, this.params.args, {
        cwd: this.params.cwd,
        env: this.record ? { ...this.params.env, ...this.record.env } : this.params.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      this.child = child;
      // Node destroys a child's stdin the moment the child exits (its exit handler destroys
      // `child.stdin`), but a wrapper that exits leaves the real server reading that very pipe: the
      // stream is kept here, out of that handler's reach, and ended by close.
      this.stdin = child.stdin;
      child.stdin = null;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        this.group = child.pid ?? null;
        if (this.group !== null) {
          this.record?.write(this.group, [this.params.command, ...this.params.args].join(' '));
          rememberGroup(this.group, this.record);
        }
        resolve();
      });
      child.once('exit', () => {
        this.leaderExited = true;
      });
      // 'close' comes once the leader has exited and every holder of its stdio (a wrapper's child
      // shares it) has let go: only then is the server gone for the client.
      child.once('close', () => {
        this.stdioClosed = true;
        this.onclose?.();
      });
      this.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr?.pipe(this.stderr);
    });
  }

  private receive(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (error) {
      // Past the buffer's cap: the stream cannot be trusted to be in step any more.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error); // one bad line; the line is consumed and the next may be fine
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.stdin;
    if (!stdin?.writable || this.closing || this.stdioClosed) return Promise.reject(new Error('Not connected'));
    // Settled when the bytes reach the pipe, or with the stream's error: a write to a stream that was
    // destroyed meanwhile fails here, where waiting for 'drain' would wait for ever.
    return new Promise((resolve, reject) => stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve())));
  }

  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  async kill(): Promise<void> {
    await killProcessTree(this.leaderExited ? null : this.pid, this.group);
    await this.close();
  }

  /** Whether the leader or anything in its group still runs. */
  private async running(): Promise<boolean> {
    return !this.leaderExited || (this.group !== null && (await groupMembers(this.group)).length > 0);
  }

  /** Wait until nothing runs, for at most `ms`; whether nothing runs. */
  private async stoppedWithin(ms: number): Promise<boolean> {
    for (const until = Date.now() + ms; ; await sleep(POLL_MS)) {
      if (!(await this.running())) return true;
      if (Date.now() >= until) return false;
    }
  }

  private async stop(): Promise<void> {
    const child = this.child;
    if (child && this.group !== null) {
      try {
        this.stdin?.end(); // EOF: how a stdio server is asked to stop
      } catch {
        // already closed
      }
      // A leader that exits on EOF closes its stdio; a grandchild that shares it keeps it open, and
      // one that does not (a helper with its own stdio) is looked for in the group below.
      // (The timer is unref'd: left pending once the race is won, it must not hold the engine open.)
      await Promise.race([new Promise<void>((resolve) => (this.stdioClosed ? resolve() : child.once('close', () => resolve()))), sleep(GRACE_MS, undefined, { ref: false })]);
      if (await this.running()) {
        signalGroup(this.group, 'SIGTERM');
        if (!this.leaderExited) child.kill('SIGTERM'); // the leader, should it have left its group
        if (!(await this.stoppedWithin(GRACE_MS))) await killProcessTree(this.leaderExited ? null : this.pid, this.group);
      }
      openGroups.delete(this.group);
      this.record?.remove();
      this.group = null;
    }
    // A process outside the group (gone through setsid) may still hold the pipes: let go of our ends,
    // so that they do not keep the engine's event loop alive; 'close', and onclose, follow.
    for (const stream of [this.stdin, child?.stdout, child?.stderr]) stream?.destroy();
    this.readBuffer.clear();
  }
}

/** The SDK's transport, with a kill that still knows the pid after the SDK has let go of it. */
function windowsTransport(params: ServerProcessParams): ServerProcessTransport {
  const transport = new StdioClientTransport({ ...params, stderr: 'pipe' });
  // The SDK forgets the pid as soon as it starts closing, which Client.connect does at once when
  // initialize times out; kill must still find the process then. Forgotten for good once it has closed.
  let pid: number | null = null;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    pid = transport.pid;
  };
  // Set before connect, which chains its own handler after this one.
  transport.onclose = () => {
    pid = null;
  };
  return Object.assign(transport, {
    kill: async () => {
      if (pid !== null) await killProcessTree(pid);
      await transport.close();
    },
  });
}

/**
 * Stdio MCP servers an engine left running when it died without running JavaScript (kill -9, a
 * crash, a force-quit), stopped by the next engine on the same data home (POSIX only).
 *
 * Each server runs as the leader of a process group of its own (server-process.ts), which the engine
 * stops on close and from its 'exit' listener; an engine killed outright does neither, and a server
 * that ignores EOF on its stdin runs on for ever, out of reach of the terminal's Ctrl+C too (it is in
 * a session of its own). So while a group runs, the engine keeps a record of it in the data home,
 * `mcp-processes/<pgid>.json`, written whole (temp file + rename) after spawn and removed once the
 * group is stopped. The engine that next takes the home (host.ts) reads what is left there: a record
 * whose owning process is gone names a group nobody will stop.
 *
 * Nothing is signalled unless it is provably the group the record names, since a pid, and so a
 * group id, is reused once its process and group are gone:
 * - with /proc (Linux): the leader still runs with the start time (field 22 of /proc/<pid>/stat)
 *   recorded at spawn; or the leader has exited (a wrapper such as `sh -c 'server &'`) and a member
 *   of the group carries the record's token in its environment (ENVACE_MCP_GROUP, set at spawn and
 *   inherited by what the server starts). A group id cannot be reused while the group has members, so
 *   a member with our token in that group is ours.
 * - without /proc (macOS): the leader still runs the recorded command line (`ps -o command=`); a group
 *   whose leader has exited cannot be told from another, and is left alone.
 * A confirmed group gets SIGTERM, up to REAP_GRACE_MS to exit, then SIGKILL (with what its members
 * started outside it). Every record read is removed: one that cannot be parsed, one whose group is
 * gone or is not ours (with a line saying so), and one whose group was stopped (one line each).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileAtomicSync } from '../../../../native-models/io/atomic';
import { processRunning, processStartTime } from '../../home/process-identity';
import { groupMembers, killProcessTree, signalGroup } from './kill-tree';

/** The folder of the data home that holds one record per running server group. */
export const SERVER_RECORDS_DIR = 'mcp-processes';
/** Set in each server's environment to the record's token: how a group whose leader has gone is recognised. */
export const GROUP_TOKEN_VAR = 'ENVACE_MCP_GROUP';
/** How long a group is given to exit after SIGTERM before SIGKILL. */
export const REAP_GRACE_MS = 2_000;
const POLL_MS = 50;
/** A temp file of an interrupted write older than this is a leftover, not a write under way. */
const TEMP_LEFTOVER_MS = 60_000;

export interface ServerRecord {
  /** The group's id: the leader's pid. */
  pgid: number;
  leader: number;
  /** The leader's start time (/proc/<pid>/stat field 22); null without /proc. */
  leaderStart: string | null;
  /** The command line as spawned (command and arguments joined by spaces, as `ps` shows them). */
  command: string;
  /** The value of ENVACE_MCP_GROUP in the server's environment. */
  token: string;
  /** The process that started the server (the engine, or a CLI command running environments), and its start time. */
  owner: number;
  ownerStart: string | null;
  /** ISO time of the spawn. */
  createdAt: string;
}

export function serverRecordsDir(home: string): string {
  return join(home, SERVER_RECORDS_DIR);
}

/** The data home servers are recorded in; null: not recorded (no engine, a read-only home). */
let recordHome: string | null = null;

/** Record the server groups this thread spawns from now on in `home` (null: none), as scratch.ts names its root. */
export function recordServersUnder(home: string | null): void {
  recordHome = home;
}

let ownStart: string | null | undefined;
/** A record of group `pgid`, spawned by this process just now with `command`. */
export function describeGroup(pgid: number, command: string, token: string): ServerRecord {
  ownStart ??= processStartTime(process.pid);
  return {
    pgid,
    leader: pgid,
    leaderStart: processStartTime(pgid),
    command,
    token,
    owner: process.pid,
    ownerStart: ownStart,
    createdAt: new Date().toISOString(),
  };
}

/** Write `record` whole into `dir`, made if missing (its parent, the data home, is not: a home removed meanwhile gets nothing). */
export function writeServerRecord(dir: string, record: ServerRecord): string {
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const file = join(dir, `${record.pgid}.json`);
  writeFileAtomicSync(file, JSON.stringify(record));
  return file;
}

let warnedWrite = false;

/** The record of one server group, from spawn until the group is stopped. */
export class GroupRecord {
  private file: string | null = null;

  private constructor(
    private readonly dir: string,
    readonly token: string,
  ) {}

  /** A record for a server about to be spawned; null where none is kept (no home named, Windows). */
  static begin(): GroupRecord | null {
    if (recordHome === null || process.platform === 'win32') return null;
    return new GroupRecord(serverRecordsDir(recordHome), randomBytes(8).toString('hex'));
  }

  /** What the server's environment gets. */
  get env(): Record<string, string> {
    return { [GROUP_TOKEN_VAR]: this.token };
  }

  /** Record group `pgid`, just spawned; best effort: a server runs whether or not it could be recorded. */
  write(pgid: number, command: string): void {
    try {
      this.file = writeServerRecord(this.dir, describeGroup(pgid, command, this.token));
    } catch (error) {
      if (warnedWrite) return;
      warnedWrite = true;
      console.error(
        `[engine] could not record MCP server group ${pgid} in ${this.dir} (${(error as Error).message}); should this engine be killed outright, its servers are not stopped by the next one`,
      );
    }
  }

  /** The group is stopped: forget it (synchronous, so that the process's 'exit' listener can call it). */
  remove(): void {
    if (this.file === null) return;
    try {
      rmSync(this.file, { force: true });
    } catch {
      // a home gone or read-only: the next engine finds the group gone and removes the record
    }
    this.file = null;
  }
}

export type ReapOutcome =
  /** The group was confirmed ours and stopped. */
  | 'stopped'
  /** Nothing of the group runs any more. */
  | 'gone'
  /** The group id now names another process's group (its leader started at another time). */
  | 'not-ours'
  /** Something runs under the group id, but nothing shows it is ours: left alone. */
  | 'unconfirmed'
  /** The process that started the server still runs: its record is kept. */
  | 'owner-alive'
  /** The record could not be parsed. */
  | 'unreadable';

export interface ReapResult {
  file: string;
  pgid: number | null;
  outcome: ReapOutcome;
}

export interface ReapOptions {
  /** How long a group is given after SIGTERM; REAP_GRACE_MS unless told. */
  graceMs?: number;
  /** Where the one line per group goes; console.error with the engine's prefix unless told. */
  log?: (line: string) => void;
}

/**
 * Stop the server groups recorded in `home` whose owning process is gone, and remove their records
 * (see the top of this file). Groups are handled at once, so the whole takes about one grace period.
 * POSIX only: on Windows nothing is recorded, and nothing is done.
 */
export async function reapLeftoverServers(home: string, options: ReapOptions = {}): Promise<ReapResult[]> {
  if (process.platform === 'win32') return [];
  const dir = serverRecordsDir(home);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // none recorded yet
  }
  const log = options.log ?? ((line: string) => console.error(`[engine] ${line}`));
  const graceMs = options.graceMs ?? REAP_GRACE_MS;
  const results = await Promise.all(names.map((name) => reapOne(join(dir, name), name, graceMs, log)));
  return results.filter((result): result is ReapResult => result !== null);
}

async function reapOne(file: string, name: string, graceMs: number, log: (line: string) => void): Promise<ReapResult | null> {
  if (/\.tmp-[0-9a-f]+$/.test(name)) {
    // A write cut short; a young one may be another engine's write under way.
    try {
      if (Date.now() - statSync(file).mtimeMs > TEMP_LEFTOVER_MS) rmSync(file, { force: true });
    } catch {
      // gone meanwhile
    }
    return null;
  }
  if (!name.endsWith('.json')) return null;
  const record = readRecord(file);
  const done = (outcome: ReapOutcome, line?: string): ReapResult => {
    try {
      rmSync(file, { force: true });
    } catch {
      // left for the next start
    }
    if (line) log(line);
    return { file, pgid: typeof record === 'string' ? null : record.pgid, outcome };
  };
  if (typeof record === 'string') return done('unreadable', `removed ${file}: not a server record (${record})`);
  if (ownerAlive(record)) return { file, pgid: record.pgid, outcome: 'owner-alive' };
  const members = await groupMembers(record.pgid);
  if (members.length === 0) return done('gone');
  const identity = await identify(record, members);
  const what = `MCP server group ${record.pgid} (${record.command}) left by pid ${record.owner}`;
  if (identity === 'not-ours')
    return done(
      'not-ours',
      `left ${what} alone: its id now names another process's group (pid ${record.leader} started at another time); record removed`,
    );
  if (identity === 'unconfirmed')
    return done('unconfirmed', `left ${what} alone: processes run under its group id, but none can be shown to be that server; record removed`);
  signalGroup(record.pgid, 'SIGTERM');
  let killed = false;
  if (!(await emptyWithin(record.pgid, graceMs))) {
    killed = true;
    await killProcessTree(null, record.pgid);
  }
  return done(
    'stopped',
    `stopped ${what}, which ended without stopping it (${killed ? `SIGKILL: it outlived SIGTERM by ${graceMs} ms` : 'SIGTERM'})`,
  );
}

/** The record in `file`, or why it is not one. */
function readRecord(file: string): ServerRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return (error as Error).message;
  }
  const r = value as Partial<ServerRecord> | null;
  const id = (n: unknown): boolean => Number.isInteger(n) && (n as number) > 1;
  const startOk = (s: unknown): boolean => s === null || typeof s === 'string';
  if (
    !r ||
    typeof r !== 'object' ||
    !id(r.pgid) ||
    !id(r.leader) ||
    !id(r.owner) ||
    typeof r.command !== 'string' ||
    typeof r.token !== 'string' ||
    !startOk(r.leaderStart) ||
    !startOk(r.ownerStart)
  ) {
    return 'a field is missing or of the wrong type';
  }
  return r as ServerRecord;
}

/** Whether the record's owner still runs: the same process (not a reuse of its pid), and not a zombie. */
function ownerAlive(record: ServerRecord): boolean {
  if (!processRunning(record.owner, record.ownerStart)) return false;
  try {
    const stat = readFileSync(`/proc/${record.owner}/stat`, 'utf8');
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc: a live pid counts
  }
}

async function identify(record: ServerRecord, members: number[]): Promise<'ours' | 'not-ours' | 'unconfirmed'> {
  if (processStartTime(process.pid) !== null) {
    const leaderStart = processStartTime(record.leader);
    if (leaderStart !== null) {
      if (record.leaderStart === null) return 'unconfirmed';
      return leaderStart === record.leaderStart ? 'ours' : 'not-ours';
    }
    // The leader has exited; its group lives on.
    return members.some((pid) => carriesToken(pid, record.token)) ? 'ours' : 'unconfirmed';
  }
  // No /proc. A command line that differs may be the same process after an exec: unconfirmed, not "not ours".
  return (await commandLine(record.leader)) === record.command ? 'ours' : 'unconfirmed';
}

function carriesToken(pid: number, token: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${GROUP_TOKEN_VAR}=${token}`);
  } catch {
    return false; // gone, or another user's
  }
}

function commandLine(pid: number): Promise<string | null> {
  return new Promise((resolve) => execFile('ps', ['-o', 'command=', '-p', String(pid)], (error, stdout) => resolve(error ? null : stdout.trim())));
}

/** Wait until group `pgid` has no live member, for at most `ms`; whether it has none. */
async function emptyWithin(pgid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; ; await sleep(POLL_MS)) {
    if ((await groupMembers(pgid)).length === 0) return true;
    if (Date.now() >= until) return false;
  }
}

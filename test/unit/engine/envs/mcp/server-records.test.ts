// The record of each running MCP server group in the data home, and the reaper the next engine runs
// on it (issue 23: an engine killed with kill -9 left servers that ignore EOF running for ever). A
// group is stopped only when its owner is gone and the group is provably the one recorded: a pid
// (and so a group id) reused by another process is left alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { groupMembers, signalGroup } from '../../../../../electron/engine/envs/mcp/kill-tree';
import { serverProcessTransport } from '../../../../../electron/engine/envs/mcp/server-process';
import {
  describeGroup,
  GROUP_TOKEN_VAR,
  reapLeftoverServers,
  recordServersUnder,
  serverRecordsDir,
  writeServerRecord,
  type ServerRecord,
} from '../../../../../electron/engine/envs/mcp/server-records';
import { patience } from '../../../../helpers/patience';
import { processGone } from '../../../../helpers/process-gone';

let home: string;
const groups: number[] = [];
const logged: string[] = [];
const log = (line: string) => logged.push(line);

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'envace-server-records-'));
});

afterEach(() => {
  recordServersUnder(null);
  // A failed test must not leave its groups running.
  for (const group of groups.splice(0)) signalGroup(group, 'SIGKILL');
  logged.splice(0);
  rmSync(home, { recursive: true, force: true });
});

/** A pid that no process has any more: a child that has exited (and been waited for). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

/** The leader of a group of its own running `script` (node), once it has written "ready" on stdout. */
async function detachedNode(script: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `${script}; process.stdout.write('ready')`], {
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true,
    env: { ...process.env, ...env },
  });
  groups.push(child.pid!);
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  child.stdin!.end(); // EOF, which it ignores as a wedged server does
  return child;
}

/** Traps SIGTERM and keeps running: only SIGKILL stops it. */
const STUBBORN = `process.on('SIGTERM', () => {}); setInterval(() => {}, 60_000)`;
/** A child's command line as spawned, the way `ps -o command=` shows it (what the transport records). */
const commandOf = (child: ChildProcess) => child.spawnargs.join(' ');

/** Write a record of `group` as if a process now gone had spawned it. */
async function recordLeftBehind(group: number, command: string, changes: Partial<ServerRecord> = {}): Promise<string> {
  const record = { ...describeGroup(group, command, 'token'), owner: await deadPid(), ownerStart: null, ...changes };
  return writeServerRecord(serverRecordsDir(home), record);
}

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.signalCode) : child.once('exit', (_code, signal) => resolve(signal)),
  );

describe.skipIf(process.platform === 'win32')('reapLeftoverServers', () => {
  it('stops the group of an owner that is gone (SIGTERM, then SIGKILL when it is ignored) and removes its record', async () => {
    const stubborn = await detachedNode(STUBBORN);
    const polite = await detachedNode(`setInterval(() => {}, 60_000)`);
    const stubbornFile = await recordLeftBehind(stubborn.pid!, commandOf(stubborn));
    await recordLeftBehind(polite.pid!, commandOf(polite));

    const results = await reapLeftoverServers(home, { graceMs: patience(300), log });
    expect(results.map((r) => [r.pgid, r.outcome]).sort()).toEqual(
      [
        [polite.pid, 'stopped'],
        [stubborn.pid, 'stopped'],
      ].sort(),
    );
    expect(await exited(stubborn)).toBe('SIGKILL');
    expect(await exited(polite)).toBe('SIGTERM');
    expect(readdirSync(serverRecordsDir(home))).toEqual([]);
    expect(existsSync(stubbornFile)).toBe(false);
    expect(logged).toHaveLength(2);
    expect(logged.find((line) => line.includes(`group ${stubborn.pid} `))).toMatch(
      /^stopped MCP server group \d+ \(.* -e process\.on\('SIGTERM'.*\) left by pid \d+, .*SIGKILL/,
    );
  });

  it('leaves alone a group whose leader started at another time than recorded (a reused pid), and drops the record', async () => {
    const other = await detachedNode(STUBBORN);
    // Linux tells it by the start time, elsewhere by the command line: both are wrong here.
    const file = await recordLeftBehind(other.pid!, 'some other server', { leaderStart: '1' });

    const results = await reapLeftoverServers(home, { graceMs: patience(300), log });
    expect(results).toEqual([{ file, pgid: other.pid, outcome: process.platform === 'linux' ? 'not-ours' : 'unconfirmed' }]);
    expect(processGone(other.pid!)).toBe(false);
    expect(existsSync(file)).toBe(false);
    expect(logged).toEqual([expect.stringMatching(/^left MCP server group \d+ .* alone/)]);
  });

  it('keeps the record of an owner that still runs, and drops unreadable records and those of groups that are gone', async () => {
    const running = await detachedNode(STUBBORN);
    const mine = writeServerRecord(serverRecordsDir(home), describeGroup(running.pid!, 'mine', 'token'));
    const gone = await recordLeftBehind(await deadPid(), 'gone');
    const garbage = join(serverRecordsDir(home), '12345.json');
    writeFileSync(garbage, '{"pgid": 12');

    const results = await reapLeftoverServers(home, { graceMs: patience(300), log });
    expect(results.sort((a, b) => a.file.localeCompare(b.file))).toEqual(
      [
        { file: mine, pgid: running.pid, outcome: 'owner-alive' },
        { file: gone, pgid: expect.any(Number), outcome: 'gone' },
        { file: garbage, pgid: null, outcome: 'unreadable' },
      ].sort((a, b) => a.file.localeCompare(b.file)),
    );
    expect(processGone(running.pid!)).toBe(false);
    expect(readdirSync(serverRecordsDir(home))).toEqual([`${running.pid}.json`]);
    expect(logged).toEqual([expect.stringContaining(`removed ${garbage}: not a server record`)]);
  });

  it('does nothing on a home without records', async () => {
    expect(await reapLeftoverServers(home, { log })).toEqual([]);
    expect(logged).toEqual([]);
  });
});

describe.skipIf(process.platform !== 'linux')('reapLeftoverServers, a group whose leader has exited (Linux)', () => {
  /** A group whose leader started a member and exited: the member runs on with `env`. */
  async function orphanedGroup(env: Record<string, string>): Promise<{ group: number; member: number }> {
    const leader = spawn('sh', ['-c', 'sleep 60 & exit 0'], { stdio: 'ignore', detached: true, env: { ...process.env, ...env } });
    const group = leader.pid!;
    groups.push(group);
    await exited(leader);
    let members: number[] = [];
    await expect.poll(async () => (members = await groupMembers(group)).length, { timeout: patience(5_000), interval: 20 }).toBe(1);
    return { group, member: members[0]! };
  }

  it('stops it when a member carries the record token in its environment', async () => {
    const { group, member } = await orphanedGroup({ [GROUP_TOKEN_VAR]: 'token' });
    await recordLeftBehind(group, "sh -c 'sleep 60 & exit 0'");
    expect((await reapLeftoverServers(home, { graceMs: patience(300), log })).map((r) => r.outcome)).toEqual(['stopped']);
    await expect.poll(() => processGone(member), { timeout: patience(5_000), interval: 20 }).toBe(true);
  });

  it('leaves it alone when no member carries the token', async () => {
    const { group, member } = await orphanedGroup({ [GROUP_TOKEN_VAR]: 'another token' });
    await recordLeftBehind(group, "sh -c 'sleep 60 & exit 0'");
    expect((await reapLeftoverServers(home, { graceMs: patience(300), log })).map((r) => r.outcome)).toEqual(['unconfirmed']);
    expect(processGone(member)).toBe(false);
  });
});

describe.skipIf(process.platform === 'win32')('the record a server transport keeps', () => {
  it('is written at spawn (with the token in the server environment) and removed on close', async () => {
    recordServersUnder(home);
    const transport = serverProcessTransport({
      command: 'sh',
      args: ['-c', `echo "$${GROUP_TOKEN_VAR}" >&2; exec cat`],
      env: { PATH: process.env.PATH ?? '' },
    });
    const token = new Promise<string>((done) => transport.stderr?.on('data', (chunk: Buffer) => done(String(chunk).trim())));
    await transport.start();
    const group = transport.pid!;
    groups.push(group);
    const file = join(serverRecordsDir(home), `${group}.json`);
    const record = JSON.parse(readFileSync(file, 'utf8')) as ServerRecord;
    expect(record).toMatchObject({
      pgid: group,
      leader: group,
      command: `sh -c echo "$${GROUP_TOKEN_VAR}" >&2; exec cat`,
      token: await token,
      owner: process.pid,
    });
    if (process.platform === 'linux') expect(record.leaderStart).toMatch(/^\d+$/);

    await transport.close();
    expect(existsSync(file)).toBe(false);
  });

  it('is not kept without a data home', async () => {
    const transport = serverProcessTransport({ command: 'cat', args: [], env: { PATH: process.env.PATH ?? '' } });
    await transport.start();
    groups.push(transport.pid!);
    expect(existsSync(serverRecordsDir(home))).toBe(false);
    await transport.close();
  });
});

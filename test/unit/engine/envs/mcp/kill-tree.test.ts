// The process-tree kill behind McpConnection.kill, on real process trees: descendants are found
// through every level, parents first, and all of them are stopped, not only the direct child.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { descendantPids, groupMembers, killProcessTree } from '../../../../../electron/engine/envs/mcp/kill-tree';
import { patience } from '../../../../helpers/patience';
import { processGone } from '../../../../helpers/process-gone';

const started: ChildProcess[] = [];
const found: number[] = [];

afterEach(() => {
  // A failed test must not leave sleeps behind.
  for (const pid of found.splice(0)) if (!processGone(pid)) process.kill(pid, 'SIGKILL');
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

function sh(script: string): ChildProcess {
  const child = spawn('sh', ['-c', script], { stdio: 'ignore' });
  started.push(child);
  return child;
}

function commandName(pid: number): string {
  return process.platform === 'linux' ? readFileSync(`/proc/${pid}/comm`, 'utf8').trim() : execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).trim();
}

function commandNames(pids: number[]): string[] {
  return pids.flatMap((pid) => {
    try {
      return [commandName(pid)];
    } catch {
      return []; // gone between the listing and this look
    }
  });
}

/**
 * The descendants of `pid` once they are the processes `names` (sorted): a shell forks its jobs one
 * after another, and a forked job is named after the shell until it has run exec.
 */
async function treeOf(pid: number, names: string[]): Promise<number[]> {
  let pids: number[] = [];
  await expect
    .poll(async () => commandNames((pids = await descendantPids(pid))).sort(), { timeout: patience(5_000), interval: 20 })
    .toEqual(names);
  found.push(...pids);
  return pids;
}

describe('descendantPids', () => {
  it("finds both jobs of sh -c 'sleep 60 & sleep 60'", async () => {
    const child = sh('sleep 60 & sleep 60');
    const pids = await treeOf(child.pid!, ['sleep', 'sleep']);
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(child.pid);
  });

  it('finds grandchildren too, each parent before its children', async () => {
    const child = sh('sh -c "sleep 60 & sleep 60" & sleep 60');
    const pids = await treeOf(child.pid!, ['sh', 'sleep', 'sleep', 'sleep']);
    const names = commandNames(pids);
    const inner = pids[names.indexOf('sh')]!;
    const grandchildren = await descendantPids(inner);
    expect(grandchildren).toHaveLength(2);
    for (const pid of grandchildren) expect(pids.indexOf(pid)).toBeGreaterThan(pids.indexOf(inner));
  });

  it('is empty for a process without children and for one that is gone', async () => {
    const child = sh('exec sleep 60');
    expect(await descendantPids(child.pid!)).toEqual([]);
    expect(await descendantPids(2 ** 22 + 12_345)).toEqual([]);
  });
});

describe('killProcessTree', () => {
  it('kills the process and every descendant, grandchildren included', async () => {
    const child = sh('sh -c "sleep 60 & sleep 60" & sleep 60');
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const pids = await treeOf(child.pid!, ['sh', 'sleep', 'sleep', 'sleep']);
    await killProcessTree(child.pid!);
    expect(await exited).toBe('SIGKILL');
    for (const pid of pids) await expect.poll(() => processGone(pid), { timeout: patience(5_000), interval: 20 }).toBe(true);
  });

  it("kills a group's members whose leader has exited, and what they started outside the group", async () => {
    // The leader leaves two members behind and exits: their parent is then pid 1 (or a subreaper),
    // out of reach of a walk down from the leader. One member starts a sleep in a session of its own.
    const escape = `require('node:child_process').spawn('sleep', ['60'], { detached: true, stdio: 'ignore' }); setInterval(() => {}, 60_000)`;
    const leader = spawn('sh', ['-c', `sleep 60 & "${process.execPath}" -e "${escape}" & exit 0`], { stdio: 'ignore', detached: true });
    started.push(leader);
    const group = leader.pid!;
    await new Promise((resolve) => leader.on('exit', resolve));
    let members: number[] = [];
    await expect.poll(async () => commandNames((members = await groupMembers(group))).sort(), { timeout: patience(5_000), interval: 20 }).toEqual(['node', 'sleep']);
    const node = members[commandNames(members).indexOf('node')]!;
    const escaped = await treeOf(node, ['sleep']);
    found.push(...members);
    expect(await groupMembers(group)).not.toContain(escaped[0]);

    await killProcessTree(null, group);
    for (const pid of [...members, ...escaped]) await expect.poll(() => processGone(pid), { timeout: patience(5_000), interval: 20 }).toBe(true);
    expect(await groupMembers(group)).toEqual([]);
  });

  it('does not throw for a process that is already gone', async () => {
    const child = sh('exit 0');
    await new Promise((resolve) => child.on('exit', resolve));
    await expect(killProcessTree(child.pid!)).resolves.toBeUndefined();
  });
});

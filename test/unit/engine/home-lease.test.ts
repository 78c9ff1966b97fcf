import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HomeLease, LEASE_FILE, LOCK_DB_FILE, LeaseError, processStartTime, remoteOwnerLive, type LeaseOwner } from '../../../electron/engine/home/lease';
import { tempHome } from '../../helpers/engine';

const homes: string[] = [];
const leases: HomeLease[] = [];
afterEach(() => {
  leases.splice(0).forEach((l) => l.release());
  homes.splice(0).forEach((h) => fs.rmSync(h, { recursive: true, force: true }));
});

function home(): string {
  const dir = tempHome('envace-lease-');
  homes.push(dir);
  return dir;
}

function lease(dir: string, label = 'test'): HomeLease {
  const l = new HomeLease(dir, label);
  leases.push(l);
  return l;
}

function writeLock(dir: string, owner: Partial<LeaseOwner>): void {
  const full: LeaseOwner = { pid: process.pid, host: os.hostname(), processStart: processStartTime(process.pid), startedAt: Date.now(), label: 'planted', token: 'planted', ...owner };
  fs.writeFileSync(path.join(dir, LEASE_FILE), JSON.stringify(full));
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(String(child.stdout));
}

describe('HomeLease: one writer per data home', () => {
  it('the first lease owns the home; a second one in the same process does not, and names the first', () => {
    const dir = home();
    const first = lease(dir, 'envace serve');
    const second = lease(dir, 'envace runs list');
    expect(first.tryAcquire()).toBe(true);
    expect(second.tryAcquire()).toBe(false);
    expect(second.isOwner).toBe(false);
    expect(second.currentOwner()?.label).toBe('envace serve');
    expect(second.currentOwner()?.pid).toBe(process.pid);
    expect(() => second.assertOwner()).toThrow(LeaseError);
  });

  it('a released home is taken by the next engine; release never removes a lock it does not hold', () => {
    const dir = home();
    const first = lease(dir);
    const second = lease(dir);
    first.tryAcquire();
    second.release(); // not the owner: the lock must stay
    expect(fs.existsSync(path.join(dir, LEASE_FILE))).toBe(true);
    expect(second.tryAcquire()).toBe(false);
    first.release();
    expect(fs.existsSync(path.join(dir, LEASE_FILE))).toBe(false);
    expect(second.tryAcquire()).toBe(true);
  });

  // Nobody holds the kernel lock in each of these: whatever engine.lock names, the home is free.
  it.each([
    ['a dead pid', (dir: string) => writeLock(dir, { pid: deadPid(), processStart: null })],
    ['pid 1 (a container’s engine)', (dir: string) => writeLock(dir, { pid: 1, processStart: processStartTime(1) })],
    ['this very process (a copied home)', (dir: string) => writeLock(dir, {})],
    ['garbage', (dir: string) => fs.writeFileSync(path.join(dir, LEASE_FILE), '{"pid": 12')],
    ['a folder', (dir: string) => fs.mkdirSync(path.join(dir, LEASE_FILE, 'inside'), { recursive: true })],
  ])('a lock naming %s with no engine behind it is taken over', (_what, plant) => {
    const dir = home();
    plant(dir);
    fs.writeFileSync(path.join(dir, `${LEASE_FILE}.stale-0a1b2c3d`), 'left by an older lock scheme');
    const l = lease(dir);
    expect(l.tryAcquire()).toBe(true);
    expect(() => l.assertOwner()).not.toThrow();
    expect(fs.existsSync(path.join(dir, `${LEASE_FILE}.stale-0a1b2c3d`))).toBe(false);
    // A folder under the lock's name is set aside whole, not deleted.
    const aside = fs.readdirSync(dir).filter((n) => n.startsWith(`${LEASE_FILE}.aside-`));
    if (_what === 'a folder') expect(fs.existsSync(path.join(dir, aside[0]!, 'inside'))).toBe(true);
  });

  it('garbage over the lock file of a live owner hands the home to nobody, and the owner writes its lock again', () => {
    const dir = home();
    const owner = lease(dir, 'envace train');
    expect(owner.tryAcquire()).toBe(true);
    fs.writeFileSync(path.join(dir, LEASE_FILE), 'garbage');
    const intruder = lease(dir, 'envace runs delete');
    expect(intruder.tryAcquire()).toBe(false);
    expect(intruder.currentOwner()?.label).toMatch(/another engine/);
    owner.assertOwner();
    expect(JSON.parse(fs.readFileSync(path.join(dir, LEASE_FILE), 'utf8')).label).toBe('envace train');
    expect(intruder.currentOwner()?.label).toBe('envace train');
  });

  it('garbage over the kernel lock file changes nothing while it is held, and is emptied once free', () => {
    const dir = home();
    const owner = lease(dir);
    owner.tryAcquire();
    fs.writeFileSync(path.join(dir, LOCK_DB_FILE), 'not a database at all, but long enough to be read as a header, surely '.repeat(3));
    expect(lease(dir).tryAcquire()).toBe(false);
    owner.release();
    expect(lease(dir).tryAcquire()).toBe(true);
  });

  it('a kernel lock file removed under the owner stops its writes: another engine may now hold a lock of its own', () => {
    const dir = home();
    const owner = lease(dir);
    owner.tryAcquire();
    fs.rmSync(path.join(dir, LOCK_DB_FILE));
    const second = lease(dir);
    expect(second.tryAcquire()).toBe(true);
    expect(() => owner.assertOwner()).toThrow(/lost the data home .* removed or replaced/);
    expect(owner.isOwner).toBe(false);
    expect(() => second.assertOwner()).not.toThrow();
  });

  it('an owner on another host counts until its heartbeat is two minutes old; one named there under a live owner stops it', () => {
    const now = Date.now();
    const remote: LeaseOwner = { pid: 1, host: `${os.hostname()}-elsewhere`, processStart: null, startedAt: 0, label: 'remote', token: 't' };
    expect(remoteOwnerLive({ owner: remote, mtimeMs: now - 5_000 }, now)).toBe(true);
    expect(remoteOwnerLive({ owner: remote, mtimeMs: now - 121_000 }, now)).toBe(false);
    const dir = home();
    writeLock(dir, remote);
    expect(lease(dir).tryAcquire()).toBe(false);
    const old = new Date(now - 121_000);
    fs.utimesSync(path.join(dir, LEASE_FILE), old, old);
    const l = lease(dir);
    expect(l.tryAcquire()).toBe(true);
    writeLock(dir, remote);
    expect(() => l.assertOwner()).toThrow(/names remote .* on another host/);
  });
});

/**
 * Racers in separate processes, driven round by round over IPC so that they try at the same moment;
 * each keeps what it won until every racer has answered, so a late racer cannot win a released home.
 */
const RACER = `
  import { HomeLease } from ${JSON.stringify(path.resolve('electron/engine/home/lease.ts'))};
  let lease = null;
  process.on('message', (m) => {
    if (m.try) { lease = new HomeLease(m.try, 'racer'); process.send(lease.tryAcquire() ? 'won' : 'lost'); }
    if (m.release) { lease?.release(); lease = null; process.send('released'); }
    if (m.exit) process.exit(0);
  });
  process.send('ready');`;

function next(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`racer exited (${code})`));
    child.once('exit', exited);
    child.once('message', (m) => {
      child.off('exit', exited);
      resolve(String(m));
    });
  });
}

/** Busy loops on every core: the race must hold on a loaded machine. */
function cpuHogs(): ChildProcess[] {
  return Array.from({ length: Math.max(2, os.availableParallelism()) }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

describe('HomeLease under contention, on a loaded machine', () => {
  it('racers for a free, a dead-pid, a garbage and a folder lock: exactly one winner in every round', async () => {
    const racers = Array.from({ length: 4 }, () => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', RACER], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }));
    const hogs = cpuHogs();
    try {
      await Promise.all(racers.map(next));
      const dead = deadPid();
      const plants: Array<(dir: string) => void> = [
        () => {},
        (dir) => writeLock(dir, { pid: dead, processStart: null }),
        (dir) => fs.writeFileSync(path.join(dir, LEASE_FILE), 'garbage'),
        (dir) => fs.mkdirSync(path.join(dir, LEASE_FILE)),
      ];
      const winners: number[] = [];
      for (let round = 0; round < 80; round++) {
        const dir = home();
        plants[round % plants.length]!(dir);
        const answers = racers.map(next);
        racers.forEach((r) => r.send({ try: dir }));
        const results = await Promise.all(answers);
        winners.push(results.filter((r) => r === 'won').length);
        const released = racers.map(next);
        racers.forEach((r) => r.send({ release: true }));
        await Promise.all(released);
      }
      expect(winners.filter((w) => w !== 1)).toEqual([]);
    } finally {
      hogs.forEach((h) => h.kill('SIGKILL'));
      racers.forEach((r) => r.kill('SIGKILL'));
    }
  });

  it('a killed owner (kill -9) frees the home at once: its kernel lock goes with it', async () => {
    const dir = home();
    const owner = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', RACER], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await next(owner);
    const won = next(owner);
    owner.send({ try: dir });
    expect(await won).toBe('won');
    expect(lease(dir).tryAcquire()).toBe(false);
    const exited = new Promise((r) => owner.once('exit', r));
    owner.kill('SIGKILL');
    await exited;
    expect(lease(dir).tryAcquire()).toBe(true);
  });
});

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HomeLease, LEASE_FILE, ownerAlive, processStartTime, type LeaseOwner } from '../../../electron/engine/home-lease';
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
  });

  it('a released home is taken by the next engine; release never removes a lock it does not hold', () => {
    const dir = home();
    const first = lease(dir);
    const second = lease(dir);
    first.tryAcquire();
    second.release(); // not the owner: the lock must stay
    expect(fs.existsSync(path.join(dir, LEASE_FILE))).toBe(true);
    first.release();
    expect(fs.existsSync(path.join(dir, LEASE_FILE))).toBe(false);
    expect(second.tryAcquire()).toBe(true);
  });

  it('a lock whose process is gone is stale and taken over', () => {
    const dir = home();
    writeLock(dir, { pid: deadPid(), processStart: null });
    expect(lease(dir).tryAcquire()).toBe(true);
  });

  it.runIf(processStartTime(process.pid) !== null)('a live pid that started at another time (a reused pid) is not the owner', () => {
    const dir = home();
    writeLock(dir, { processStart: '1' });
    expect(lease(dir).tryAcquire()).toBe(true);
  });

  it('an unreadable or truncated lock is stale (a live engine writes it whole)', () => {
    const dir = home();
    fs.writeFileSync(path.join(dir, LEASE_FILE), '{"pid": 12');
    expect(lease(dir).tryAcquire()).toBe(true);
  });

  it('an owner on another host counts until its heartbeat is two minutes old', () => {
    const owner: LeaseOwner = { pid: 1, host: `${os.hostname()}-elsewhere`, processStart: null, startedAt: 0, label: 'remote', token: 't' };
    const now = Date.now();
    expect(ownerAlive(owner, now - 5_000, now)).toBe(true);
    expect(ownerAlive(owner, now - 121_000, now)).toBe(false);
  });

  it('eight processes racing for one free home: exactly one wins', async () => {
    const dir = home();
    const script = `
      import { HomeLease } from ${JSON.stringify(path.resolve('electron/engine/home-lease.ts'))};
      const lease = new HomeLease(process.argv[1], 'racer');
      await new Promise((r) => setTimeout(r, Number(process.argv[2]) - Date.now()));
      const won = lease.tryAcquire();
      process.stdout.write(won ? 'won' : 'lost');
      await new Promise((r) => setTimeout(r, 1500));
      lease.release();`;
    const startAt = Date.now() + 2500;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir, String(startAt)], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += String(d)));
        return new Promise<string>((resolve) => child.once('exit', () => resolve(out)));
      }),
    );
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost')).toHaveLength(7);
  });
});

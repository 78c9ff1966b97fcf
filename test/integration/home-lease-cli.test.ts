// The lease seen from a second process: garbage over a live owner's lock hands it nothing, `home
// unlock` says what it checks, and a home on a read-only mount can still be listed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../electron/contract';
import { createEngine } from '../../electron/engine/host';
import { LEASE_FILE } from '../../electron/engine/home/lease';
import { tempHome } from '../helpers/engine';
import { lastJson, runEnvace } from '../helpers/cli';

const homes: string[] = [];
afterAll(() => homes.forEach((h) => fs.rmSync(h, { recursive: true, force: true })));
const home = () => {
  const dir = tempHome('envace-lease-cli-');
  homes.push(dir);
  return dir;
};

describe('the data home lease across processes', () => {
  it('garbage over a live owner’s engine.lock: another process’s runs delete is refused (exit 5) and the run stays', async () => {
    const dir = home();
    const owner = createEngine({ home: dir, label: 'envace train' });
    try {
      const run = owner.services.store.runs.insert({ id: 'run-20261202-000000-abcdef', config: RunConfig.parse({ env: 'mock' }) });
      fs.writeFileSync(path.join(dir, LEASE_FILE), 'garbage');
      const deleted = await runEnvace(dir, 'runs', 'delete', run.id);
      expect(deleted.code, deleted.stderr).toBe(5);
      expect(deleted.stderr).toContain('in use by');
      const unlock = await runEnvace(dir, 'home', 'unlock');
      expect(unlock.code).toBe(5);
      expect(unlock.stdout).toContain('✗ no engine on this machine holds the home');
      // The owner goes on writing: it still holds the kernel lock, and writes its lock file again.
      owner.services.store.runs.update(run.id, { currentStep: 3 });
      expect(owner.services.store.runs.get(run.id)?.currentStep).toBe(3);
      expect(JSON.parse(fs.readFileSync(path.join(dir, LEASE_FILE), 'utf8')).label).toBe('envace train');
    } finally {
      await owner.close();
    }
  });

  it('home unlock: a lock from another host is kept while its heartbeat is recent, removed with --force', async () => {
    const dir = home();
    fs.writeFileSync(path.join(dir, LEASE_FILE), JSON.stringify({ pid: 1, host: `${os.hostname()}-nas`, processStart: null, startedAt: Date.now(), label: 'envace serve', token: 't' }));
    const refused = await runEnvace(dir, 'home', 'unlock', '--json');
    expect(refused.code).toBe(5);
    expect(lastJson(refused.stdout)).toMatchObject({ removed: false, free: false, checks: [{ passed: true }, { passed: false, check: 'an owner on another host has stopped its heartbeat' }] });
    const forced = await runEnvace(dir, 'home', 'unlock', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('✓ lock removed');
    expect(fs.existsSync(path.join(dir, LEASE_FILE))).toBe(false);
  });

  // A real read-only mount needs mount(8) and the right to use it (root in CI's container).
  const canMount = (() => {
    if (process.platform !== 'linux') return false;
    const probe = home();
    const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
    if (ok) spawnSync('umount', [probe]);
    return ok;
  })();
  it.runIf(canMount)('a home on a read-only mount lists its runs, and a write answers a typed read-only error', async () => {
    const mountPoint = home();
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mountPoint]).status).toBe(0);
    try {
      const writer = createEngine({ home: mountPoint });
      writer.services.store.runs.insert({ id: 'run-20261202-000000-fedcba', config: RunConfig.parse({ env: 'mock', name: 'kept' }) });
      await writer.close();
      expect(spawnSync('mount', ['-o', 'remount,ro', mountPoint]).status).toBe(0);
      const listed = await runEnvace(mountPoint, 'runs', 'list', '--json');
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.stringify(lastJson(listed.stdout))).toContain('run-20261202-000000-fedcba');
      const deleted = await runEnvace(mountPoint, 'runs', 'delete', 'run-20261202-000000-fedcba');
      expect(deleted.code).toBe(5);
      expect(deleted.stderr).toContain('read-only');
    } finally {
      spawnSync('umount', [mountPoint]);
    }
  });
});

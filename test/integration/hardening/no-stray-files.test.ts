import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../../helpers/engine';
import { patience } from '../../helpers/patience';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function listAll(root: string): string[] {
  return fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).map((f) => path.join(root, f));
}

describe('a training run and an episode of the files env write only under the data home', () => {
  it('leaves HOME, XDG_CACHE_HOME and TMPDIR empty (no ORT telemetry db, no mat-debug log)', async () => {
    const [home, userHome, cache, tmp] = ['envace-data-', 'envace-user-', 'envace-xdg-', 'envace-tmp-'].map((p) => {
      const dir = tempHome(p);
      dirs.push(dir);
      return dir;
    });
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../../fixtures/train-short-child.ts'), home], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // TSX_DISABLE_CACHE: tsx (the dev loader; a built app has none) caches transpiled files in TMPDIR.
      env: { ...process.env, HOME: userHome, XDG_CACHE_HOME: cache, TMPDIR: tmp, ENVACE_HOME: undefined, TSX_DISABLE_CACHE: '1' },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += String(d)));
    child.stderr.on('data', (d: Buffer) => (output += String(d)));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code, output).toBe(0);
    expect(output).toContain('status completed');
    expect(output).toContain('files ok');
    // Sandboxes live (briefly) under the data home, not in TMPDIR.
    expect(/sandbox (\S+)/.exec(output)?.[1]).toMatch(new RegExp(`^${fs.realpathSync(home)}/tmp/files/`));
    expect(listAll(home).length, 'the run wrote its data home').toBeGreaterThan(0);
    expect([...listAll(userHome), ...listAll(cache), ...listAll(tmp)]).toEqual([]);
  }, patience(120_000));
});

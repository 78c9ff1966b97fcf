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

const bin = path.resolve(import.meta.dirname, '../../../bin/envace.mjs');

/** Run the real `envace` command with HOME, XDG_CACHE_HOME and TMPDIR pointed at the given folders. */
function envace(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TSX_DISABLE_CACHE: undefined, ENVACE_TSX_CACHE: undefined, ...env } });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += String(d)));
  child.stderr.on('data', (d: Buffer) => (output += String(d)));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('the envace command keeps tsx’s compile cache in the data home', () => {
  it('a training run through bin/envace.mjs (its compute worker included) leaves TMPDIR, HOME and XDG_CACHE_HOME empty; the cache is <home>/cache/tsx', async () => {
    const [home, userHome, cache, tmp, inputs] = ['envace-data-', 'envace-user-', 'envace-xdg-', 'envace-tmp-', 'envace-in-'].map((p) => {
      const dir = tempHome(p);
      dirs.push(dir);
      return dir;
    });
    const config = path.join(inputs, 'run.json');
    const rollout = { k: 2, tasksPerStep: 1, maxTurns: 2, maxTokensPerTurn: 32, maxObservationTokens: 16, toolSchemas: 'none' };
    fs.writeFileSync(config, JSON.stringify({ env: 'retail', worldSize: 5, algo: 'envace', model: { preset: 'nano' }, seed: 1, provider: 'cpu', steps: 2, checkpointEvery: 1, rollout }));
    // Without TSX_DISABLE_CACHE: tsx caches as it does for every user (it wrote ~200 files to $TMPDIR/tsx-<uid>/).
    const run = await envace(['train', '--home', home, '--config', config, '--json'], { HOME: userHome, XDG_CACHE_HOME: cache, TMPDIR: tmp, ENVACE_HOME: undefined });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('"status":"completed"');
    expect([...listAll(userHome), ...listAll(cache), ...listAll(tmp)]).toEqual([]);
    const cached = listAll(path.join(home, 'cache', 'tsx')).filter((f) => fs.statSync(f).isFile());
    expect(cached.length, 'the cache is kept, so later starts do not transpile again').toBeGreaterThan(100);
  }, patience(240_000));

  it('a home that cannot hold the cache runs without one, and still writes nothing to TMPDIR', async () => {
    const [home, tmp] = ['envace-data-', 'envace-tmp-'].map((p) => {
      const dir = tempHome(p);
      dirs.push(dir);
      return dir;
    });
    fs.writeFileSync(path.join(home, 'cache'), 'a file where the cache folder would go');
    const help = await envace(['--help'], { TMPDIR: tmp, ENVACE_HOME: home });
    expect(help.code, help.output).toBe(0);
    expect(help.output).toContain('Usage: envace');
    expect(listAll(tmp)).toEqual([]);
  }, patience(120_000));
});

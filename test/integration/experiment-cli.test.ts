import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { progressLabel } from '../../electron/cli/commands/experiment';
import { runEnvace } from '../helpers/cli';
import { tempHome } from '../helpers/engine';

const home = tempHome('envace-exp-cli-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const envace = (...args: string[]) => runEnvace(home, ...args);

describe('envace experiment (command line)', () => {
  it('an unknown suite is a usage error (exit 2) that names the choices, before any training', async () => {
    const { code, stderr } = await envace('experiment', '--suite', 'huge', '--home', home);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('envace: unknown suite "huge"; choose quick or full');
    expect(fs.existsSync(path.join(home, 'experiments'))).toBe(false);
  });

  it('--suite or --resume is required, not both; --resume wants a folder that holds an experiment', async () => {
    const none = await envace('experiment', '--home', home);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give --suite quick|full, or --resume DIR');
    const both = await envace('experiment', '--suite', 'quick', '--resume', home, '--home', home);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('drop --suite and --out');
    const empty = await envace('experiment', '--resume', path.join(home, 'nothing-here'), '--home', home);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/holds no experiment/);
  });

  it('progress lines say which run, env, seed, method and step', () => {
    expect(progressLabel({ run: 2, runs: 8, env: 'retail', seed: 1, label: 'paw', step: 3, totalSteps: 158, fraction: 0.3, etaMs: 1000 })).toBe(
      '[2/8] retail seed 1 · paw · step 3/158',
    );
  });
});

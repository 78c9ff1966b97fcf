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

  it('--suite is required', async () => {
    expect((await envace('experiment', '--home', home)).code).toBe(2);
  });

  it('progress lines say which run, env, seed, method and step', () => {
    expect(progressLabel({ run: 2, runs: 8, env: 'retail', seed: 1, label: 'paw', step: 3, totalSteps: 158, fraction: 0.3, etaMs: 1000 })).toBe(
      '[2/8] retail seed 1 · paw · step 3/158',
    );
  });
});

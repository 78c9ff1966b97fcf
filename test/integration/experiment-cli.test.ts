import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { progressLabel } from '../../electron/cli/commands/experiment';
import { CELLS_FILE, CellStore } from '../../electron/engine/experiment/cells';
import { planSuite } from '../../electron/engine/experiment/plan';
import { SUITES, type Suite } from '../../electron/engine/experiment/suite';
import { evalCell, runCell } from '../unit/engine/experiment/fixtures';
import { lastJson, runEnvace } from '../helpers/cli';
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

  it('--resume DIR reads the suite and cells kept there; with every cell done it trains nothing and writes the table', async () => {
    const suite: Suite = { ...SUITES.quick, name: 'tiny', seeds: [1], methods: ['sft', 'grpo-real'] };
    const dir = path.join(home, 'experiments', 'kept');
    const store = CellStore.create(dir, suite);
    for (const seed of planSuite(suite))
      for (const run of [seed.sft, ...seed.methods]) {
        store.append(runCell(run.method, 1));
        for (const e of run.evals) store.append(evalCell(run.method, 1, e.split, { key: e.key, success: run.method === 'sft' ? 0.25 : 0.5 }));
      }
    // While another process works in the folder, a resume is refused before it trains or writes anything.
    const busy = await envace('experiment', '--resume', dir, '--home', home);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`another envace experiment is working in ${dir}`);
    expect(fs.existsSync(path.join(dir, 'table.json'))).toBe(false);
    store.close();
    const { code, stdout, stderr } = await envace('experiment', '--resume', dir, '--home', home, '--json');
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('6 cell(s) already done');
    const out = lastJson(stdout);
    expect(out).toMatchObject({ suite: 'tiny', out: dir, failures: [] });
    expect(out.rows[1].heldout.deltaSuccess).toMatchObject({ mean: 0.25, signs: ['+'] });
    expect(fs.readFileSync(path.join(dir, 'table.md'), 'utf8')).toContain('| grpo-real | 1 | 0.500 | +0.250 [+] |');
    // Nothing new was appended: no run was trained, no evaluation made.
    expect(fs.readFileSync(path.join(dir, CELLS_FILE), 'utf8').trim().split('\n')).toHaveLength(6);
  });
});

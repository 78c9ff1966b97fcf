import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { lastJson, runEnvace } from '../../helpers/cli';
import { tempHome } from '../../helpers/engine';

const home = tempHome('envace-cli-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const envace = (...args: string[]) => runEnvace(home, ...args);

describe('envace', () => {
  it('--help lists the command set of architecture.md', async () => {
    const { code, stdout } = await envace('--help');
    expect(code).toBe(0);
    for (const command of ['train', 'eval', 'rehearse', 'export', 'import', 'experiment', 'runs', 'serve', 'bench'])
      expect(stdout).toContain(command);
  });

  it('runs list --json prints one JSON object on the last line', async () => {
    const { code, stdout } = await envace('runs', 'list', '--json', '--home', home);
    expect(code).toBe(0);
    expect(lastJson(stdout)).toEqual({ items: [], total: 0 });
  });

  it('a missing run exits 3 with a one-line reason on stderr', async () => {
    const { code, stderr, stdout } = await envace('runs', 'show', 'run-missing', '--home', home);
    expect(code).toBe(3);
    expect(stderr.trim().split('\n')).toEqual(['envace: no run with id run-missing']);
    expect(stdout).toBe('');
  });

  it('a usage error exits 2', async () => {
    expect((await envace('runs', 'list', '--bogus')).code).toBe(2);
    expect((await envace('eval', '--env', 'retail', '--policy', 'oracle', '--split', 'everything')).code).toBe(2);
    const noEnv = await envace('eval', '--policy', 'oracle', '--split', 'heldout');
    expect(noEnv.code).toBe(2);
    expect(noEnv.stderr).toContain('--policy oracle needs --env ID');
  });

  it('eval --policy oracle runs the scripted expert through the real environment', async () => {
    const { code, stdout } = await envace('eval', '--policy', 'oracle', '--env', 'retail', '--split', 'heldout', '--limit', '4', '--json');
    expect(code).toBe(0);
    expect(lastJson(stdout)).toMatchObject({ env: 'retail', split: 'heldout', tasks: 4, success: 1, score: 1, failed: [] });
  });
});

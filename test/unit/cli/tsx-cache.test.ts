import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JS loaded before tsx exists (bin/), without type declarations
import { homeFromArgv } from '../../../bin/tsx-cache.mjs';
import { resolveHome } from '../../../electron/engine/home';

const argv = (...args: string[]) => ['node', 'envace', ...args];
const home = homeFromArgv as (argv: string[], env?: Record<string, string | undefined>) => string;

describe('the data home bin/envace.mjs keeps tsx’s cache in', () => {
  it('is the home the command will open: --home DIR or --home=DIR (the last one), else $ENVACE_HOME, else ~/.envace', () => {
    expect(home(argv('runs', 'list', '--home', 'a/b'), {})).toBe(resolveHome('a/b'));
    expect(home(argv('--home=/x', 'train', '--home', '/y'), {})).toBe('/y');
    expect(home(argv('runs', 'list'), { ENVACE_HOME: '/from/env' })).toBe('/from/env');
    expect(home(argv('--help'), {})).toBe(path.join(os.homedir(), '.envace'));
    // After `--` every word is an argument, never an option.
    expect(home(argv('envs', 'add-mcp', 'x', '--', '--home', '/not'), { ENVACE_HOME: '/e' })).toBe('/e');
  });
});

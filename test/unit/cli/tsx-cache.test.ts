import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JS loaded before tsx exists (bin/), without type declarations
import { FLAGS_WITHOUT_VALUE, homeFromArgv } from '../../../bin/tsx-cache.mjs';
import { buildProgram } from '../../../electron/cli/index';
import { resolveHome } from '../../../electron/engine/home';

const argv = (...args: string[]) => ['node', 'envace', ...args];
const home = homeFromArgv as (argv: string[], env?: Record<string, string | undefined>) => string;

describe('the data home bin/envace.mjs keeps tsx’s cache in', () => {
  it('is the home the command will open: --home DIR or --home=DIR (the last one), else $ENVACE_HOME, else ~/.envace', () => {
    expect(home(argv('runs', 'list', '--home', 'a/b'), {})).toBe(resolveHome('a/b'));
    expect(home(argv('--home=/x', 'train', '--home', '/y'), {})).toBe('/y');
    expect(home(argv('runs', 'list'), { ENVACE_HOME: '/from/env' })).toBe('/from/env');
    expect(home(argv('--help'), {})).toBe(path.join(os.homedir(), '.envace'));
    expect(home(argv('train', '--json', '--home', '/h', '--set', 'a=1', 'b=2'), {})).toBe('/h');
    // After `--` every word is an argument, never an option.
    expect(home(argv('envs', 'add-mcp', 'x', '--', '--home', '/not'), { ENVACE_HOME: '/e' })).toBe('/e');
  });

  it("never takes another option's value for it: registering `envace mcp serve --home DIR` as a server", () => {
    const args = ['envs', 'add-mcp', 'self', '--command', 'node', ...['envace.mjs', 'mcp', 'serve', '--home', '/served'].flatMap((a) => ['--arg', a]), '--tasks', 't.jsonl'];
    expect(home(argv(...args), { ENVACE_HOME: '/mine' })).toBe('/mine');
    expect(home(argv(...args, '--home', '/h'), {})).toBe('/h');
  });

  it('knows every option of the program that takes no value', () => {
    const flags = new Set<string>(['-h', '--help']);
    (function walk(command: Command) {
      for (const option of command.options) if (!option.required && !option.optional) flags.add(option.long ?? option.short!);
      command.commands.forEach(walk);
    })(buildProgram());
    expect([...(FLAGS_WITHOUT_VALUE as Set<string>)].sort()).toEqual([...flags].sort());
  });
});

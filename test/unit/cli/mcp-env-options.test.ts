import { describe, expect, it } from 'vitest';
import { envOptionValueError, parseEnvOptions } from '../../../electron/cli/commands/mcp';
import { runEnvace } from '../../helpers/cli';
import { tempHome } from '../../helpers/engine';
import { patience } from '../../helpers/patience';

describe('envace mcp serve --env-option', () => {
  it('reads KEY=VALUE pairs, values as JSON where they parse, and refuses what is not one', () => {
    expect(parseEnvOptions(['worldSize=20', 'seed=3', 'worldMode=procedural', 'flag=true'])).toEqual({ worldSize: 20, seed: 3, worldMode: 'procedural', flag: true });
    expect(() => parseEnvOptions(['worldSize'])).toThrow(/KEY=VALUE/);
    expect(() => parseEnvOptions(['__proto__={"x":1}'])).toThrow(/cannot name/);
    expect(Object.getPrototypeOf(parseEnvOptions(['a=1']))).toBe(Object.prototype);
  });

  it('an option the environment does not have is a usage error (exit 2) naming it', async () => {
    const r = await runEnvace(tempHome('envace-mcp-opt-'), 'mcp', 'serve', '--env', 'retail', '--env-option', 'rooms=3', '--port', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has no option 'rooms'/);
  });

  it('a value out of range, or of the wrong kind, is a usage error (exit 2) naming the option and its allowed range', async () => {
    const home = tempHome('envace-mcp-opt-');
    const cases: Array<[string, string[], RegExp]> = [
      ['retail', ['worldSize=1e12'], /^envace: --env-option worldSize=1e12: retail world size must be an integer in \[5, \d+\], got 1000000000000$/m],
      ['retail', ['worldMode=bogus', 'seed=2'], /^envace: --env-option worldMode=bogus: retail worldMode must be one of fixed, procedural/m],
      ['household', ['rooms=1e12'], /^envace: --env-option rooms=1e12: household world size: rooms must be an integer in \[1, \d+\]/m],
    ];
    for (const [env, options, message] of cases) {
      const r = await runEnvace(home, 'mcp', 'serve', '--env', env, ...options.flatMap((o) => ['--env-option', o]), '--port', '0');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  }, patience(120_000));

  it('names the option the refusal is about as a word (seed is not worldSeed), or every option given when it cannot tell', () => {
    expect(envOptionValueError('worldSeed must be an integer, got 1.5', ['seed=2', 'worldSeed=1.5']).message).toBe('--env-option worldSeed=1.5: worldSeed must be an integer, got 1.5');
    expect(envOptionValueError('task count for train must be a non-negative integer, got -1', ['counts={"train":-1}']).message).toMatch(/^--env-option counts=/);
    expect(envOptionValueError('something else went wrong', ['a=1', 'b=2']).message).toBe('--env-option a=1, --env-option b=2: something else went wrong');
    expect(envOptionValueError('x', ['a=1']).exitCode).toBe(2);
  });
});

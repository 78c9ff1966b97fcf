import { describe, expect, it } from 'vitest';
import { parseEnvOptions } from '../../../electron/cli/commands/mcp';
import { runEnvace } from '../../helpers/cli';
import { tempHome } from '../../helpers/engine';

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
});

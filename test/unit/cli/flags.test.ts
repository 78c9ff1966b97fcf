import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applySetting, configFromFlags } from '../../../electron/cli/commands/train';
import { main } from '../../../electron/cli/index';
import { CliError, EXIT } from '../../../electron/cli/output';
import { runEnvace } from '../../helpers/cli';
import { tempHome } from '../../helpers/engine';

const home = tempHome('envace-cli-flags-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const usageError = (fn: () => unknown, message: RegExp) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    expect((error as CliError).message).toMatch(message);
    return;
  }
  throw new Error('expected a usage error');
};

describe('--set', () => {
  it('refuses __proto__, constructor and prototype keys, and Object.prototype stays clean', () => {
    for (const key of ['__proto__.steps', 'constructor.prototype.steps', 'rollout.__proto__.k', 'prototype', 'a.constructor'])
      usageError(() => applySetting({}, `${key}=3`), /cannot name/);
    expect(({} as Record<string, unknown>).steps).toBeUndefined();
    expect(({} as Record<string, unknown>).k).toBeUndefined();
  });

  it('sets nested knobs and never writes through an inherited property', () => {
    const target: Record<string, unknown> = {};
    applySetting(target, 'rollout.k=8');
    applySetting(target, 'loss.stdNormalize=true');
    applySetting(target, 'toString.x=1');
    expect(target).toEqual({ rollout: { k: 8 }, loss: { stdNormalize: true }, toString: { x: 1 } });
    expect(typeof Object.prototype.toString).toBe('function');
    usageError(() => applySetting({}, 'a..b=1'), /dotted key/);
  });

  it('configFromFlags answers a usage error, not a prototype write, for --set __proto__.steps=3', () => {
    usageError(() => configFromFlags({ env: 'retail', algo: 'sft', set: ['__proto__.steps=3'] }), /cannot name "__proto__"/);
    expect(({} as Record<string, unknown>).steps).toBeUndefined();
  });

  it('--config names the env, or --env does (overriding it); with neither it is a usage error', () => {
    const file = path.join(home, 'stored-run.json');
    fs.writeFileSync(file, JSON.stringify({ env: 'household', algo: 'grpo-real', steps: 4 }));
    expect(configFromFlags({ algo: 'grpo-real', config: file })).toMatchObject({ env: 'household', steps: 4 });
    expect(configFromFlags({ env: 'retail', config: file })).toMatchObject({ env: 'retail', algo: 'grpo-real' });
    usageError(() => configFromFlags({ algo: 'sft' }), /--env is required/);
  });

  it('--config must hold a JSON object within the JSON bounds', () => {
    const file = path.join(home, 'deep.json');
    fs.writeFileSync(file, '['.repeat(5_000) + ']'.repeat(5_000));
    usageError(() => configFromFlags({ env: 'retail', algo: 'sft', config: file }), /cannot read --config .*deeper than 64/);
    fs.writeFileSync(file, '"steps"');
    usageError(() => configFromFlags({ env: 'retail', algo: 'sft', config: file }), /must hold a JSON object/);
  });
});

describe('envace serve flags', () => {
  it('refuses a non-loopback --host with exit 2 (usage), as the README says', async () => {
    const { code, stderr } = await runEnvace(home, 'serve', '--host', '0.0.0.0', '--home', home);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('envace: web mode listens on loopback only; refusing --host "0.0.0.0" (use 127.0.0.1, ::1 or localhost)');
    expect(await main(['node', 'envace', 'serve', '--host', '192.168.1.10', '--home', home])).toBe(2);
  });

  it('refuses a --port that is not a port with exit 2', async () => {
    for (const port of ['abc', '70000', '1.5', '']) expect(await main(['node', 'envace', 'serve', '--port', port, '--home', home]), port).toBe(2);
  });
});

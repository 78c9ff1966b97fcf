import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtInDefaults, type Settings } from '../../../electron/contract';
import { readSettings, writeSettings } from '../../../electron/engine/home/settings';
import { testEngine } from '../../helpers/engine';

const owner = testEngine();
// A second engine on the same home attaches read-only: the first holds the lease.
const reader = testEngine({ home: owner.home });
afterAll(async () => {
  await reader.engine.close();
  await owner.cleanup();
});
const ctx = { transport: 'in-process' as const };
const defaults = { newRun: { env: 'mock', model: 'imported:qwen' }, evaluate: { split: 'train' as const, limit: 25 } };

describe('settings in the data home', () => {
  it('a home without a settings file has the built-in defaults, its size and free disk', async () => {
    const got = await owner.engine.dispatch('settings.get', {}, ctx);
    expect(got).toMatchObject({ ok: true, value: { dataHome: owner.home, settingsFile: path.join(owner.home, 'settings.json'), defaults: builtInDefaults, access: { writable: true, owner: null } } });
    const value = (got as { value: Settings }).value;
    expect(value.homeBytes).toBeGreaterThan(0);
    expect(value.freeBytes).toBeGreaterThan(0);
  });

  it('set stores the defaults (whole, in one rename) and get reads them back; the file holds nothing else', async () => {
    expect(await owner.engine.dispatch('settings.set', { defaults }, ctx)).toMatchObject({ ok: true, value: { defaults } });
    expect(JSON.parse(fs.readFileSync(path.join(owner.home, 'settings.json'), 'utf8'))).toEqual(defaults);
    expect(fs.readdirSync(owner.home).filter((f) => f.includes('settings.json.'))).toEqual([]);
    expect(await owner.engine.dispatch('settings.get', {}, ctx)).toMatchObject({ ok: true, value: { defaults } });
  });

  it('bad defaults are refused with a typed error, and the stored ones stay', async () => {
    const bad = await owner.engine.dispatch('settings.set', { defaults: { ...defaults, evaluate: { split: 'nope', limit: 5 } } }, ctx);
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(readSettings(path.join(owner.home, 'settings.json'))).toEqual(defaults);
  });

  it('an engine attached read-only shows who owns the home and refuses to store', async () => {
    const got = await reader.engine.dispatch('settings.get', {}, ctx);
    expect(got).toMatchObject({ ok: true, value: { access: { writable: false, owner: expect.any(String) }, defaults } });
    expect(await reader.engine.dispatch('settings.set', { defaults: { ...defaults, newRun: { env: null, model: null } } }, ctx)).toMatchObject({ ok: false, error: { code: 'conflict' } });
  });

  it('a settings file that is not JSON, or not valid settings, is an error naming the file', () => {
    const file = path.join(owner.home, 'broken-settings.json');
    fs.writeFileSync(file, '{"newRun":');
    expect(() => readSettings(file)).toThrow(/broken-settings\.json is not JSON/);
    fs.writeFileSync(file, JSON.stringify({ ...defaults, evaluate: { split: 'heldout', limit: -1 } }));
    expect(() => readSettings(file)).toThrow(/evaluate\.limit/);
    writeSettings(file, defaults);
    expect(readSettings(file)).toEqual(defaults);
  });
});

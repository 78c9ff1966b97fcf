import { afterEach, describe, expect, it } from 'vitest';
import { DataMissingError, dataDir, dataPath } from '../../../../electron/engine/envs/data-dir';
import { callTool, OracleError, runOracle } from '../../../../electron/engine/envs/oracle';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import type { ToolEnv } from '../../../../electron/engine/envs/types';

const saved = process.env.ENVACE_DATA_DIR;
afterEach(() => {
  if (saved === undefined) delete process.env.ENVACE_DATA_DIR;
  else process.env.ENVACE_DATA_DIR = saved;
});

describe('oracle', () => {
  it('runOracle honours limit and reports env calls', async () => {
    const env = new RetailEnv({ worldSize: 10, counts: { train: 12, heldout: 4, ood: 4 } });
    const r = await runOracle(env, 'train', { limit: 5 });
    expect(r.perTask.length).toBe(5);
    expect(r.score).toBe(1);
    expect(r.envCalls).toBe(r.perTask.reduce((s, t) => s + t.envCalls, 0));
    expect(r.envCalls).toBeGreaterThan(0);
  });

  it('an env without an expert is a typed error', async () => {
    const env = { id: 'x', tasks: () => [] } as unknown as ToolEnv;
    await expect(runOracle(env, 'train')).rejects.toThrow(OracleError);
  });

  it('callTool: one call in a fresh episode, errors returned not thrown', async () => {
    const env = new RetailEnv({ worldSize: 10, counts: { train: 3, heldout: 1, ood: 1 } });
    const types = await callTool(env, 'list_all_product_types', {});
    expect(types.ok).toBe(true);
    expect(Object.keys(JSON.parse(types.observation)).length).toBe(50);
    expect(await callTool(env, 'get_order_details', { order_id: '#W0' })).toEqual({ ok: false, observation: 'Error: Order not found' });
    expect(await callTool(env, 'get_order_details', {})).toEqual({
      ok: false,
      observation: "Error: invalid arguments for get_order_details: 'order_id' is a required property",
    });
    expect(await callTool(env, 'rm_rf', {})).toEqual({ ok: false, observation: "Error: Tool 'rm_rf' not found" });
  });
});

describe('data folder', () => {
  it('defaults to shared/data next to the repo and honours ENVACE_DATA_DIR', () => {
    delete process.env.ENVACE_DATA_DIR;
    expect(dataDir().endsWith('/shared/data')).toBe(true);
    process.env.ENVACE_DATA_DIR = '/tmp/envace-no-such-dir';
    expect(dataDir()).toBe('/tmp/envace-no-such-dir');
  });

  it('a missing folder or file is a clear error naming the path', () => {
    process.env.ENVACE_DATA_DIR = '/tmp/envace-no-such-dir';
    expect(() => dataPath('tau2-bench', 'x.json')).toThrow(DataMissingError);
    expect(() => dataPath('tau2-bench', 'x.json')).toThrow('benchmark data folder not found: /tmp/envace-no-such-dir');
    delete process.env.ENVACE_DATA_DIR;
    expect(() => dataPath('tau2-bench', 'nope.json')).toThrow(/benchmark data file not found: .*tau2-bench\/nope\.json/);
  });
});

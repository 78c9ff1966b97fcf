import { describe, expect, it } from 'vitest';
import { EnvDetail as EnvDetailSchema, EnvSummary as EnvSummarySchema } from '../../../../electron/contract/envs';
import { envDetail, EnvOptionsError, envSummary, getEnv, listEnvs, registerEnv, UnknownEnvError } from '../../../../electron/engine/envs/registry';
import type { ToolEnv } from '../../../../electron/engine/envs/types';

describe('env registry', () => {
  it('lists the built-in envs this part owns without constructing them', () => {
    const ids = listEnvs().map((e) => e.id);
    expect(ids).toEqual(expect.arrayContaining(['mock', 'retail', 'tau-retail']));
    expect(listEnvs().find((e) => e.id === 'tau-retail')?.track).toBe('pretrained');
  });

  it('builds an env on first use and reuses it for the same options', async () => {
    const a = await getEnv('retail', { worldSize: 8, counts: { train: 5, heldout: 3, ood: 2 } });
    const b = await getEnv('retail', { counts: { train: 5, heldout: 3, ood: 2 }, worldSize: 8 });
    expect(a).toBe(b);
    const c = await getEnv('retail', { worldSize: 9, counts: { train: 5, heldout: 3, ood: 2 } });
    expect(c).not.toBe(a);
  });

  it('summarises an env: tools and task counts per split', async () => {
    const s = envSummary(await getEnv('retail', { worldSize: 8, counts: { train: 5, heldout: 3, ood: 2 } }));
    expect(s).toMatchObject({ id: 'retail', track: 'scratch', taskCounts: { train: 5, heldout: 3, ood: 2 } });
    expect(s.toolCount).toBe(16);
    expect(envSummary(await getEnv('mock')).taskCounts).toEqual({ train: 10, heldout: 10, ood: 0 });
    // The shapes are what the contract accepts.
    expect(EnvSummarySchema.parse(s)).toEqual(s);
    const detail = envDetail(await getEnv('mock'));
    expect(EnvDetailSchema.parse(detail)).toEqual(detail);
    expect(detail.tools.map((t) => t.name)).toContain('create_task');
  });

  it('rejects unknown envs, unknown options and bad option values with typed errors', async () => {
    await expect(getEnv('nope')).rejects.toThrow(UnknownEnvError);
    await expect(getEnv('nope')).rejects.toThrow(/known: .*mock/);
    await expect(getEnv('retail', { worldsize: 3 })).rejects.toThrow(EnvOptionsError);
    await expect(getEnv('mock', { seed: 1 })).rejects.toThrow("environment 'mock' has no option 'seed' (options: none)");
    await expect(getEnv('retail', { worldSize: 1 })).rejects.toThrow(/world size/);
    await expect(getEnv('retail', { seed: 0.5 })).rejects.toThrow('seed must be an integer, got 0.5');
  });

  it('registers another env in one call', async () => {
    const fake = { id: 'fake', description: 'x', track: 'mcp', tools: () => [], tasks: () => [] } as unknown as ToolEnv;
    registerEnv({ id: 'fake', description: 'x', track: 'mcp', options: [], create: async () => fake });
    expect(await getEnv('fake')).toBe(fake);
    expect(envSummary(fake).taskCounts).toEqual({ train: 0, heldout: 0, ood: 0 });
  });
});

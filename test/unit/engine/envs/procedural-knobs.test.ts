import { describe, expect, it } from 'vitest';
import { configFromFlags } from '../../../../electron/cli/commands/train';
import { RunConfig } from '../../../../electron/contract';
import { envOptions } from '../../../../electron/engine/algorithms/env-options';
import { HouseholdEnv } from '../../../../electron/engine/envs/household/env';
import { getEnv } from '../../../../electron/engine/envs/registry';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';

/** What `envace train --env ENV --set …` builds, down to the env instance the loop would train on. */
async function envFromCli(env: string, set: string[]) {
  const config = RunConfig.parse(configFromFlags({ env, algo: 'sft', set } as Parameters<typeof configFromFlags>[0]));
  return { config, env: await getEnv(env, envOptions(config)) };
}

describe('worldMode and taskMix reach the env from a run config', () => {
  it('retail: --set worldMode=procedural taskMix=lookups builds a procedural look-up env', async () => {
    const { config, env } = await envFromCli('retail', ['worldMode=procedural', 'taskMix=lookups', 'worldSize=12']);
    expect(envOptions(config)).toEqual({ worldSize: 12, seed: 0, worldMode: 'procedural', taskMix: 'lookups' });
    const retail = env as RetailEnv;
    expect([retail.worldMode, retail.taskMix]).toEqual(['procedural', 'lookups']);
    const task = retail.task(retail.tasks('heldout')[0].id);
    expect(task.meta?.kind).toBe('lookup');
    expect(Object.keys(retail.worldOf(task).users as object)).toHaveLength(12);
  });

  it('retail: --set trainTasks=600 draws that many training tasks, each its own world, held-out untouched', async () => {
    const { config, env } = await envFromCli('retail', ['worldMode=procedural', 'taskMix=lookups', 'trainTasks=600']);
    expect(envOptions(config)).toMatchObject({ counts: { train: 600 } });
    const retail = env as RetailEnv;
    expect(retail.tasks('train')).toHaveLength(600);
    expect(retail.tasks('heldout')).toHaveLength(50);
    expect(new Set(retail.tasks('train').map((r) => retail.task(r.id).meta?.worldSeed)).size).toBe(600);
    expect(RunConfig.safeParse({ env: 'retail', trainTasks: 0 }).success).toBe(false);
  });

  it('retail: --set heldoutTasks=200 draws that many held-out tasks, the first 50 those of the default count', async () => {
    const { config, env } = await envFromCli('retail', ['worldMode=procedural', 'taskMix=lookups', 'trainTasks=600', 'heldoutTasks=200']);
    expect(envOptions(config)).toMatchObject({ counts: { train: 600, heldout: 200 } });
    const more = env as RetailEnv;
    const { env: plain } = await envFromCli('retail', ['worldMode=procedural', 'taskMix=lookups']);
    const heldout = more.tasks('heldout');
    expect(heldout).toHaveLength(200);
    expect(more.tasks('train')).toHaveLength(600);
    expect(heldout.slice(0, 50)).toEqual((plain as RetailEnv).tasks('heldout'));
    expect(new Set(heldout.map((r) => more.task(r.id).meta?.worldSeed)).size).toBe(200);
    expect(RunConfig.safeParse({ env: 'retail', heldoutTasks: 0 }).success).toBe(false);
  });

  it('household: the same knobs, with worldSize as the object count', async () => {
    const { env } = await envFromCli('household', ['worldMode=procedural', 'taskMix=chains', 'worldSize=6']);
    const household = env as HouseholdEnv;
    expect([household.worldMode, household.taskMix, household.size.objects]).toEqual(['procedural', 'chains', 6]);
    expect(new Set(household.tasks('train').map((r) => household.task(r.id).meta?.family))).toEqual(new Set(['examine', 'pick_place']));
  });

  it('defaults leave the options (and so the cached env) exactly as before the knobs existed', () => {
    expect(envOptions(RunConfig.parse({ env: 'retail' }))).toEqual({ worldSize: 8, seed: 0 });
    expect(envOptions(RunConfig.parse({ env: 'household', worldSize: 4 }))).toEqual({ objects: 4 });
    expect(envOptions(RunConfig.parse({ env: 'files', worldMode: 'procedural' }))).toEqual({});
  });

  it('a bad value is refused by the contract, naming the knob', () => {
    expect(() => configFromFlags({ env: 'retail', algo: 'sft', set: ['worldMode=random'] } as Parameters<typeof configFromFlags>[0])).toThrow(/worldMode/);
    expect(RunConfig.safeParse({ env: 'retail', taskMix: 'hard' }).success).toBe(false);
  });
});

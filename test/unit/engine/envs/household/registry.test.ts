import { describe, expect, it } from 'vitest';
import { EnvSummary as EnvSummarySchema } from '../../../../../electron/contract/envs';
import { FilesEnv } from '../../../../../electron/engine/envs/files/env';
import { HouseholdEnv } from '../../../../../electron/engine/envs/household/env';
import { runOracle } from '../../../../../electron/engine/envs/oracle';
import { envSummary, getEnv } from '../../../../../electron/engine/envs/registry';
import { SPLITS } from '../../../../../electron/engine/envs/types';

// The envs of this part as the rest of the engine reaches them: through the registry and the shared oracle.
describe('household, files and bfcl in the env registry', () => {
  it('builds household from its options and rejects impossible sizes', async () => {
    const env = await getEnv('household', { rooms: 1, objects: 4, tasksPerSplit: 3 });
    expect(env).toBeInstanceOf(HouseholdEnv);
    const summary = envSummary(env);
    expect(EnvSummarySchema.parse(summary)).toEqual(summary);
    expect(summary).toMatchObject({ id: 'household', track: 'scratch', toolCount: 11, taskCounts: { train: 3, heldout: 3, ood: 3 } });
    await expect(getEnv('household', { rooms: 9 })).rejects.toThrow(/rooms must be an integer in \[1, 5\]/);
  });

  it('the shared oracle (actions through the text grammar) scores 100% on household and files', async () => {
    const household = await getEnv('household', { rooms: 3, objects: 12, tasksPerSplit: 10 });
    const files = await getEnv('files', { files: 8, tasksPerSplit: 5 });
    expect(files).toBeInstanceOf(FilesEnv);
    for (const env of [household, files]) {
      for (const split of SPLITS) {
        const r = await runOracle(env, split);
        expect(r.perTask.length, `${env.id} ${split}`).toBeGreaterThan(0);
        expect(r.score, `${env.id} ${split}`).toBe(1);
        expect(r.success, `${env.id} ${split}`).toBe(1);
      }
    }
  });

  it('builds bfcl as a pretrained-track env whose oracle scores 100% through the shared runner', async () => {
    const bfcl = await getEnv('bfcl');
    expect(bfcl.track).toBe('pretrained');
    const r = await runOracle(bfcl, 'heldout');
    expect(r.perTask.length).toBe(bfcl.tasks('heldout').length);
    expect(r.score).toBe(1);
    expect(r.success).toBe(1);
  });
});

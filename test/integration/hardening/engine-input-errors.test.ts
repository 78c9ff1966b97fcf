// Two refusals the engine must word for the user: a payload past the size/depth bounds (checked by a
// loop before zod), and an export to a folder nothing can be written to.
import { afterAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../electron/contract';
import fs from 'node:fs';
import { createEngine } from '../../../electron/engine/host';
import { tempHome, testEngine } from '../../helpers/engine';
import { patience } from '../../helpers/patience';

const { engine, cleanup } = testEngine();
// The export needs a real environment to train on: an engine with the real catalog.
const realHome = tempHome('envace-export-errors-');
const real = createEngine({ home: realHome });
afterAll(async () => {
  await cleanup();
  await real.close();
  fs.rmSync(realHome, { recursive: true, force: true });
});

describe('engine input errors', () => {
  it('a payload nested past 64 levels is invalid_input naming the bound, and the engine still answers', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const answer = await engine.dispatch('envs.call', { env: 'contract-test', tool: 'echo', arguments: { text: deep } }, { transport: 'websocket' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/nests deeper than 64 levels/) } });
    expect((await engine.dispatch('runs.list', {}, { transport: 'websocket' })).ok).toBe(true);
  });

  it('an export to /proc is a clear invalid_input, not a raw ENOENT', async () => {
    const store = real.services.store;
    // A run with a checkpoint is needed to export anything: a one-step nano SFT run.
    const created = await real.dispatch('runs.create', { config: RunConfig.parse({ env: 'retail', worldSize: 5, algo: 'sft', steps: 1, checkpointEvery: 1, model: { preset: 'nano' }, rollout: { toolSchemas: 'none', maxObservationTokens: 24 } }), start: true }, { transport: 'in-process' });
    expect(created.ok).toBe(true);
    const id = created.ok ? (created.value as { id: string }).id : '';
    for (let i = 0; i < 600 && !['completed', 'failed'].includes(store.runs.get(id)!.status); i++) await new Promise((r) => setTimeout(r, 100));
    expect(store.runs.get(id)!.status).toBe('completed');
    const answer = await real.dispatch('exports.create', { source: { run: id }, format: 'hf', outDir: '/proc/envace-export' }, { transport: 'in-process' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/^cannot write the export to \/proc\/envace-export \(E[A-Z]+: /) } });
  }, patience(120_000));
});

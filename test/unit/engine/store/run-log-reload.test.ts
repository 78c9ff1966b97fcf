import { afterEach, describe, expect, it } from 'vitest';
import { createClient, RunConfig } from '../../../../electron/contract';
import { createEngine } from '../../../../electron/engine/host';
import { inProcessTransport } from '../../../../electron/engine/in-process';
import type { EngineServices } from '../../../../electron/engine/system/services';
import { startTraining } from '../../../../electron/engine/runs/training';
import { testEngine } from '../../../helpers/engine';

let env: ReturnType<typeof testEngine> | undefined;
afterEach(async () => {
  await env?.cleanup();
  env = undefined;
});

describe('a run log after a reload', () => {
  it('is what training logged, read back by runs.log from a fresh engine on the same home', async () => {
    env = testEngine();
    const services = env.engine.services;
    const run = services.store.runs.insert({ id: 'r-log', config: RunConfig.parse({ env: 'contract-test', steps: 1 }) });
    // A worker that logs two lines and fails: the lines must outlive the page that saw them live.
    const compute = {
      ...services.compute,
      stream: async (_op: string, _input: unknown, onEvent: (e: unknown) => void) => {
        onEvent({ type: 'log', level: 'info', message: 'stage sft: 1 step' });
        onEvent({ type: 'log', level: 'error', message: 'out of memory at step 1' });
        throw new Error('out of memory');
      },
    } as unknown as EngineServices['compute'];
    const job = startTraining({ ...services, compute } as EngineServices, run.id);
    await services.jobs.wait(job.id);
    await env.engine.close();

    const reopened = createEngine({ home: env.home, envs: services.envs, onInternalError: () => {} });
    try {
      const api = createClient(inProcessTransport(reopened));
      const { lines } = await api.call('runs.log', { id: run.id });
      expect(lines.map((l) => [l.level, l.message])).toEqual([
        ['info', 'stage sft: 1 step'],
        ['error', 'out of memory at step 1'],
      ]);
      expect((await api.call('runs.get', { id: run.id })).error).toBe('out of memory');
    } finally {
      await reopened.close();
    }
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../electron/contract';
import { testEngine } from '../../helpers/engine';

const FIXTURE = fileURLToPath(new URL('./envs/mcp/fixture-server.mjs', import.meta.url));
const { engine, home, cleanup } = testEngine();
afterAll(cleanup);

describe('envs.remove', () => {
  it('refuses while a run trains on the environment, and removes it once none does', async () => {
    const taskFile = path.join(home, 'tasks.jsonl');
    fs.writeFileSync(taskFile, `${JSON.stringify({ id: 't', instruction: 'Echo hi.', checklist: [{ kind: 'call', weight: 1, name: 'echo' }], gold: { calls: [{ name: 'echo', arguments: { text: 'hi' } }] } })}\n`);
    const added = await engine.dispatch('envs.addMcp', { id: 'echo-srv', server: { command: process.execPath, args: [FIXTURE] }, taskFile }, { transport: 'in-process' });
    expect(added.ok).toBe(true);
    const store = engine.services.store;
    const run = store.runs.insert({ id: 'run-20261201-000000-abcdef', config: RunConfig.parse({ env: 'echo-srv' }) });
    store.runs.update(run.id, { status: 'running' });
    const refused = await engine.dispatch('envs.remove', { id: 'echo-srv' }, { transport: 'in-process' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining(run.id) } });
    store.runs.update(run.id, { status: 'cancelled' });
    expect(await engine.dispatch('envs.remove', { id: 'echo-srv' }, { transport: 'in-process' })).toEqual({ ok: true, value: { ok: true } });
    expect(fs.existsSync(path.join(home, 'mcp', 'echo-srv'))).toBe(false);
  });
});

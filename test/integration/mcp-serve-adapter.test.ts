// Our world through our own door: retail served over stdio by `envace mcp serve`, registered back as
// a user MCP environment (`envace envs add-mcp`, a fresh server process per episode) with the task
// file `envace mcp tasks` writes, and the oracle scores 100 % through the MCP adapter — its
// checklist from the transcript the adapter kept, its end state from the served env's own check.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lastJson, runEnvace } from '../helpers/cli';
import { tempHome } from '../helpers/engine';

const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');
const home = tempHome('envace-mcp-adapter-');
// The served process keeps a home of its own: it need not read the registering one.
const servedHome = tempHome('envace-mcp-served-');
afterAll(() => {
  for (const dir of [home, servedHome]) fs.rmSync(dir, { recursive: true, force: true });
});

const TASKS = 6;

describe('retail over MCP, registered back as an MCP environment', () => {
  it('the oracle replays every task through the adapter at 100 %', async () => {
    const taskFile = path.join(home, 'retail-tasks.jsonl');
    const written = await runEnvace(home, 'mcp', 'tasks', '--env', 'retail', '--split', 'heldout', '--limit', String(TASKS), '--out', taskFile, '--json');
    expect(written.code, written.stderr).toBe(0);
    expect(lastJson(written.stdout)).toMatchObject({ tasks: TASKS });
    const first = JSON.parse(fs.readFileSync(taskFile, 'utf8').split('\n')[0]) as { gold: { calls: Array<{ name: string; arguments: object }> } };
    // The convention: start_task opens the episode; the env's calls then carry no episode_id.
    expect(first.gold.calls[0]).toEqual({ name: 'start_task', arguments: { task_id: 'heldout-0000-order-status' } });
    expect(first.gold.calls.slice(1).every((c) => !('episode_id' in c.arguments))).toBe(true);

    const served = ['mcp', 'serve', '--env', 'retail', '--stdio', '--home', servedHome];
    const added = await runEnvace(home, 'envs', 'add-mcp', 'retail-mcp', '--command', process.execPath, ...[bin, ...served].flatMap((a) => ['--arg', a]), '--tasks', taskFile, '--json');
    expect(added.code, added.stderr).toBe(0);
    expect(lastJson(added.stdout)).toMatchObject({ id: 'retail-mcp', toolCount: 19, taskCounts: { heldout: TASKS }, reset: expect.stringMatching(/^restart/) });

    const t0 = performance.now();
    const oracle = await runEnvace(home, 'eval', '--policy', 'oracle', '--env', 'retail-mcp', '--split', 'heldout', '--json');
    const wallMs = performance.now() - t0;
    expect(oracle.code, oracle.stderr).toBe(0);
    const result = lastJson(oracle.stdout);
    expect(result).toMatchObject({ tasks: TASKS, success: 1, score: 1 });
    // The round-trip figures for the report (a server process per episode dominates the time).
    console.log(`retail over MCP via the adapter: ${TASKS} tasks, oracle success ${result.success}, ${(wallMs / 1000).toFixed(1)} s wall (${(wallMs / TASKS / 1000).toFixed(2)} s per task)`);
  });
});

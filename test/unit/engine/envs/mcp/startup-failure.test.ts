// A server that cannot be had for an episode (it dies at start-up, or in its reset tool) fails that
// episode, counted and named; the eval, training run or `envs test` around it goes on.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpReset } from '../../../../../electron/contract';
import { McpToolEnv } from '../../../../../electron/engine/envs/mcp/env';
import { SERVER_DOWN_CHECK } from '../../../../../electron/engine/envs/mcp/server-down-episode';
import { failureReason, runOracle } from '../../../../../electron/engine/envs/oracle';

const FIXTURE = fileURLToPath(new URL('./fixture-server.mjs', import.meta.url));
const TASKS = ['a', 'b', 'c'].map((id) => ({
  id,
  instruction: `Echo ${id}.`,
  checklist: [{ kind: 'call', weight: 1, name: 'echo', arguments: { text: id } }],
  gold: { calls: [{ name: 'echo', arguments: { text: id } }] },
}));

let dir: string;
let taskFile: string;
const envs: McpToolEnv[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'envace-mcp-startfail-'));
  taskFile = join(dir, 'tasks.jsonl');
  await writeFile(taskFile, TASKS.map((t) => JSON.stringify(t)).join('\n'));
});

afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
  await rm(dir, { recursive: true, force: true });
});

async function build(reset: McpReset, env: Record<string, string> = {}): Promise<McpToolEnv> {
  const server = { transport: 'stdio' as const, command: process.execPath, args: [FIXTURE], env };
  const e = await McpToolEnv.fromTaskFile({ id: `startfail-${reset.kind}`, server, reset, taskFile, episodeRoot: join(dir, `episodes-${reset.kind}`), limits: { timeoutMs: 5_000 } });
  envs.push(e);
  return e;
}

describe('a server that cannot be had fails the episode, not the command', () => {
  it('restart: a server that dies at start-up fails every episode with the reason, and the oracle still reports each task', async () => {
    // Registration's probe is the first start; every episode's start is refused.
    const e = await build({ kind: 'restart', seedFiles: [] }, { FIXTURE_STARTS: join(dir, 'starts') });
    const result = await runOracle(e, 'train');
    expect(result.perTask.map((r) => [r.taskId, r.success, r.score])).toEqual([
      ['a', false, 0],
      ['b', false, 0],
      ['c', false, 0],
    ]);
    const [check] = result.perTask[0].envCheck.checks;
    expect(check).toMatchObject({ name: SERVER_DOWN_CHECK, passed: false });
    expect(check.detail).toMatch(/^the tool server did not start: /);
    expect(failureReason(result.perTask[0])).toMatch(/^not met: the tool server started — the tool server did not start: /);
  });

  it('tool: a pool server that dies in its reset call fails that episode; the next gets a fresh process', async () => {
    // reset_once works once per process: the registration's probe uses it, so the first episode's reset kills that process.
    const e = await build({ kind: 'tool', tool: 'reset_once', arguments: {} });
    const result = await runOracle(e, 'train');
    expect(result.perTask.map((r) => r.success)).toEqual([false, true, false]);
    expect(result.perTask[0].envCheck.checks[0]).toMatchObject({ name: SERVER_DOWN_CHECK, passed: false, detail: expect.stringMatching(/reset tool "reset_once" failed/) });
  });
});

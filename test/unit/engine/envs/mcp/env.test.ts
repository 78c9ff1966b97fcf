import { fileURLToPath } from 'node:url';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolEnv, mcpRegistration } from '../../../../../electron/engine/envs/mcp/env';
import { getEnv, registerEnv } from '../../../../../electron/engine/envs/registry';
import { runEpisode, silentPolicy } from '../household/drive';
import { patience } from '../../../../helpers/patience';

const FIXTURE = fileURLToPath(new URL('./fixture-server.mjs', import.meta.url));

const TASKS = [
  {
    id: 'echo-hi',
    instruction: 'Echo "hi".',
    checklist: [{ kind: 'call', weight: 1, name: 'echo', arguments: { text: 'hi' } }, { kind: 'answer', weight: 1, expected: ['echo: hi'] }],
    gold: { calls: [{ name: 'echo', arguments: { text: 'hi' } }], answer: 'echo: hi' },
  },
  { id: 'echo-yo', split: 'heldout', instruction: 'Echo "yo".', checklist: [{ kind: 'call', weight: 1, name: 'echo', arguments: { text: 'yo' } }], gold: { calls: [{ name: 'echo', arguments: { text: 'yo' } }] } },
];

let dir: string;
let env: McpToolEnv;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'envace-mcp-test-'));
  const taskFile = join(dir, 'tasks.jsonl');
  await writeFile(taskFile, TASKS.map((t) => JSON.stringify(t)).join('\n'));
  env = await McpToolEnv.fromTaskFile({ id: 'fixture', server: { transport: 'stdio', command: process.execPath, args: [FIXTURE] }, taskFile, limits: { timeoutMs: patience(2_000) } });
});

afterAll(async () => {
  await env?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('McpToolEnv', () => {
  it('registers as an environment in one call and is built on first use', async () => {
    const taskFile = join(dir, 'tasks.jsonl');
    registerEnv(mcpRegistration({ id: 'user-fixture', server: { transport: 'stdio', command: process.execPath, args: [FIXTURE] }, taskFile }));
    const registered = await getEnv('user-fixture');
    try {
      expect(registered).toBeInstanceOf(McpToolEnv);
      expect(registered.track).toBe('mcp');
      expect(registered.tasks('train').map((t) => t.id)).toEqual(['echo-hi']);
    } finally {
      await registered.close?.();
    }
  });

  it('refuses a task file whose gold calls or checklist do not fit the server tools, citing lines', async () => {
    const bad = [
      TASKS[0],
      { ...TASKS[1], id: 'x', gold: { calls: [{ name: 'shout', arguments: {} }] } },
      { ...TASKS[1], id: 'y', gold: { calls: [{ name: 'echo', arguments: { text: 3 } }] }, checklist: [{ kind: 'no-call', weight: 1, name: 'whisper' }] },
    ];
    const taskFile = join(dir, 'bad.jsonl');
    await writeFile(taskFile, bad.map((t) => JSON.stringify(t)).join('\n'));
    const server = { transport: 'stdio' as const, command: process.execPath, args: [FIXTURE] };
    await expect(McpToolEnv.fromTaskFile({ id: 'fixture', server, taskFile })).rejects.toThrow(
      [
        `invalid task file ${taskFile}:`,
        '  line 2: gold call to "shout", which the server does not offer',
        "  line 3: gold call to \"echo\" has bad arguments: 3 is not of type 'string' at /text",
        '  line 3: checklist names tool "whisper", which the server does not offer',
      ].join('\n'),
    );
  });

  it('takes its tools from the server and its tasks from the file, by split', () => {
    expect(env.track).toBe('mcp');
    expect(env.tools().map((t) => t.name)).toEqual(['echo', 'big', 'sleep', 'crash', 'note', 'notes', 'clear_notes', 'deny', 'reset_once']);
    expect(env.tasks('train').map((t) => t.id)).toEqual(['echo-hi']);
    expect(env.tasks('heldout').map((t) => t.id)).toEqual(['echo-yo']);
    expect(() => env.task('nope')).toThrow(/no task "nope"/);
  });

  it('the gold replay scores 100% and a silent policy 0', async () => {
    for (const id of ['echo-hi', 'echo-yo']) {
      const task = env.task(id);
      const gold = await runEpisode(env, task, env.expert(task));
      expect(gold.checklist.score).toBe(1);
      expect(gold.observations[1]).toBe(`echo: ${(task.gold.calls[0].arguments as { text: string }).text}`);
      expect(gold.check.passed).toBe(true);
      expect((await runEpisode(env, task, silentPolicy)).checklist.score).toBe(0);
    }
  });

  it('a server killed mid-episode gives an error observation, is recorded, and the next episode has a new server', async () => {
    const task = env.task('echo-hi');
    const episode = await env.reset(task, 0);
    expect((await episode.step({ kind: 'calls', calls: [{ name: 'echo', arguments: { text: 'a' } }] })).observation).toBe('echo: a');
    const pid = episode.serverPid!;
    process.kill(pid, 'SIGKILL');
    const r = await episode.step({ kind: 'calls', calls: [{ name: 'echo', arguments: { text: 'b' } }] });
    expect(r.done).toBe(false);
    expect(r.observation).toMatch(/^Error: the tool server (stopped during echo|is not running)/);
    expect(episode.failures).toHaveLength(1);
    const check = await episode.finalCheck();
    expect(check.passed).toBe(false);
    expect(check.checks).toEqual([{ name: 'tool server stayed up', passed: false, detail: episode.failures[0] }]);
    await episode.close();

    const next = await env.reset(task, 0);
    try {
      expect(next.serverPid).not.toBe(pid);
      expect((await next.step({ kind: 'calls', calls: [{ name: 'echo', arguments: { text: 'c' } }] })).observation).toBe('echo: c');
    } finally {
      await next.close();
    }
  });
});

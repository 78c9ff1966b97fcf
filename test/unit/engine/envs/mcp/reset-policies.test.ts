import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvsAddMcpInput, type McpReset } from '../../../../../electron/contract';
import { McpToolEnv } from '../../../../../electron/engine/envs/mcp/env';
import type { Episode } from '../../../../../electron/engine/envs/types';
import { substituteEpisodeDir } from '../../../../../electron/engine/envs/mcp/episode-servers';
import { jsonSubset, matchState, STATE_ITEM_SCHEMA } from '../../../../../electron/engine/envs/mcp/state-checks';
import { runOracle } from '../../../../../electron/engine/envs/oracle';
import { patience } from '../../../../helpers/patience';

const FIXTURE = fileURLToPath(new URL('./fixture-server.mjs', import.meta.url));
const server = { transport: 'stdio' as const, command: process.execPath, args: [FIXTURE] };

// A write task checked by what the server holds afterwards, and a task whose gold call the server refuses.
const TASKS = [
  {
    id: 'remember-hello',
    instruction: 'Remember "hello".',
    checklist: [
      { kind: 'call', weight: 1, name: 'note', arguments: { text: 'hello' } },
      { kind: 'state', tool: 'notes', match: { subset: ['hello'] } },
      { kind: 'state', tool: 'notes', match: { contains: 'goodbye', absent: true } },
    ],
    gold: { calls: [{ name: 'note', arguments: { text: 'hello' } }] },
  },
  { id: 'denied', split: 'heldout', instruction: 'Do the forbidden thing.', checklist: [{ kind: 'call', weight: 1, name: 'deny' }], gold: { calls: [{ name: 'deny', arguments: {} }] } },
];

let dir: string;
let taskFile: string;
const envs: McpToolEnv[] = [];

// The timeout also bounds each server's start-up, which alone took over 3 s at load 24 on two cores.
async function env(reset: McpReset, timeoutMs = patience(3_000)): Promise<McpToolEnv> {
  const built = await McpToolEnv.fromTaskFile({ id: `fixture-${reset.kind}`, server, reset, taskFile, episodeRoot: join(dir, 'episodes'), limits: { timeoutMs } });
  envs.push(built);
  return built;
}

async function call(episode: Episode, name: string, args: Record<string, string> = {}): Promise<string> {
  return (await episode.step({ kind: 'calls', calls: [{ name, arguments: args }] })).observation;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'envace-mcp-reset-'));
  taskFile = join(dir, 'tasks.jsonl');
  await writeFile(taskFile, TASKS.map((t) => JSON.stringify(t)).join('\n'));
});

afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('reset policies: what one episode writes, the next does not see', () => {
  it('restart: a fresh server per episode; parallel episodes get separate processes', async () => {
    const e = await env({ kind: 'restart', seedFiles: [] });
    const task = e.task('remember-hello');
    const a = await e.reset(task, 0);
    const b = await e.reset(task, 0);
    try {
      expect(a.serverPid).not.toBe(b.serverPid);
      expect(await call(a, 'note', { text: 'from a' })).toBe('noted (1)');
      expect(await call(b, 'notes')).toBe('[]');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const c = await e.reset(task, 0);
    try {
      expect(await call(c, 'notes')).toBe('[]');
    } finally {
      await c.close();
    }
  });

  it('tool: the reset tool runs before each episode; a server is lent to one episode at a time', async () => {
    const e = await env({ kind: 'tool', tool: 'clear_notes', arguments: {} });
    const task = e.task('remember-hello');
    const a = await e.reset(task, 0);
    const b = await e.reset(task, 0);
    const pidA = a.serverPid;
    expect(pidA).not.toBe(b.serverPid);
    await call(a, 'note', { text: 'from a' });
    expect(await call(b, 'notes')).toBe('[]');
    await Promise.all([a.close(), b.close()]);
    const c = await e.reset(task, 0);
    try {
      expect([pidA, b.serverPid]).toContain(c.serverPid); // a pooled process, reused after its reset
      expect(await call(c, 'notes')).toBe('[]');
    } finally {
      await c.close();
    }
  });

  it('none: one shared server, so writes leak (the user asked for it), and the contract wants that said', async () => {
    const e = await env({ kind: 'none', sharedState: true });
    const task = e.task('remember-hello');
    const a = await e.reset(task, 0);
    await call(a, 'note', { text: 'shared' });
    await a.close();
    const b = await e.reset(task, 0);
    try {
      expect(await call(b, 'notes')).toBe('["shared"]');
    } finally {
      await b.close();
    }
    const unsaid = EnvsAddMcpInput.safeParse({ id: 'x', server: { command: 'srv' }, taskFile: 't.jsonl', reset: { kind: 'none' } });
    expect(unsaid.success).toBe(false);
    expect(JSON.stringify(unsaid.error?.issues)).toContain('sharedState');
    expect(EnvsAddMcpInput.safeParse({ id: 'x', server: { url: 'http://127.0.0.1:1/mcp' }, taskFile: 't.jsonl', reset: { kind: 'restart' } }).success).toBe(false);
  });

  it('{episode_dir} is refused where no episode folder is made (reset tool or none), naming where it was and the mode that has it', () => {
    const server = { command: 'mcp-sqlite', args: ['--db', '{episode_dir}/db.sqlite'], env: { LOG: '{episode_dir}/log' } };
    for (const reset of [{ kind: 'tool', tool: 'clear' }, { kind: 'none', sharedState: true }]) {
      const parsed = EnvsAddMcpInput.safeParse({ id: 'x', server, taskFile: 't.jsonl', reset });
      expect(parsed.success).toBe(false);
      const message = parsed.error!.issues.map((i) => i.message).join('\n');
      expect(message).toContain(`{episode_dir} (in --arg 2, --env LOG) is substituted only by reset "restart"`);
      expect(message).toContain(`under reset "${reset.kind}"`);
    }
    // Restart substitutes it, and without the placeholder the other modes are fine.
    expect(EnvsAddMcpInput.safeParse({ id: 'x', server, taskFile: 't.jsonl', reset: { kind: 'restart' } }).success).toBe(true);
    expect(EnvsAddMcpInput.safeParse({ id: 'x', server, taskFile: 't.jsonl' }).success).toBe(true);
    expect(EnvsAddMcpInput.safeParse({ id: 'x', server: { command: 'srv', args: ['--db', '/data/db.sqlite'] }, taskFile: 't.jsonl', reset: { kind: 'tool', tool: 'clear' } }).success).toBe(true);
  });

  it('a hung server (SIGSTOP) times out, is stopped, and the next episode gets a live one', async () => {
    const e = await env({ kind: 'tool', tool: 'clear_notes', arguments: {} }, 400);
    const task = e.task('remember-hello');
    const a = await e.reset(task, 0);
    const pid = a.serverPid!;
    process.kill(pid, 'SIGSTOP');
    const started = Date.now();
    expect(await call(a, 'notes')).toBe('Error: tool call notes timed out after 400 ms.');
    expect(Date.now() - started).toBeLessThan(3_000);
    await a.close();
    expect(() => process.kill(pid, 0)).toThrow();
    const b = await e.reset(task, 0);
    try {
      expect(b.serverPid).not.toBe(pid);
      expect(await call(b, 'notes')).toBe('[]');
    } finally {
      await b.close();
    }
  });

  it('{episode_dir} is substituted in args, env and cwd', () => {
    const spec = substituteEpisodeDir({ transport: 'stdio', command: 'srv', args: ['--db', '{episode_dir}/db.json'], env: { STATE: '{episode_dir}/s' }, cwd: '{episode_dir}' }, '/e/1');
    expect(spec).toEqual({ transport: 'stdio', command: 'srv', args: ['--db', '/e/1/db.json'], env: { STATE: '/e/1/s' }, cwd: '/e/1' });
  });
});

describe('what the oracle checks on a user server', () => {
  it('a write task passes on the end state; a policy that writes nothing (or the wrong thing) fails it', async () => {
    const e = await env({ kind: 'restart', seedFiles: [] });
    const gold = await runOracle(e, 'train');
    expect(gold.success).toBe(1);
    expect(gold.perTask[0].envCheck.checks.map((c) => [c.name, c.passed])).toEqual([
      ['after the episode, notes({}) holds the expected entries', true],
      ['after the episode, notes({}) does not contain "goodbye"', true],
      ['tool server stayed up', true],
    ]);
    const task = e.task('remember-hello');
    const episode = await e.reset(task, 0);
    try {
      await call(episode, 'note', { text: 'goodbye' });
      const check = await episode.finalCheck();
      expect(check.passed).toBe(false);
      expect(check.checks[0]).toMatchObject({ passed: false, detail: 'expected entries missing; the server answered "[\\"goodbye\\"]"' });
      expect(check.checks[1].passed).toBe(false);
    } finally {
      await episode.close();
    }
  });

  it('a gold call the server rejects (isError) fails the oracle, however well the checklist reads', async () => {
    const e = await env({ kind: 'restart', seedFiles: [] });
    const result = await runOracle(e, 'heldout');
    expect(result.perTask[0].checklist.score).toBe(1);
    // The checklist reads "called deny", but the server refused it: the task's score is 0, as its success.
    expect(result.perTask[0].score).toBe(0);
    expect(result.success).toBe(0);
    expect(result.perTask[0].envCheck.checks.at(-1)).toEqual({ name: 'the server accepted every call', passed: false, detail: 'deny: Error: Access denied' });
  });

  it('a failing state check says what was wrong, in words that read as a failure', () => {
    const item = (match: unknown) => STATE_ITEM_SCHEMA.parse({ kind: 'state', tool: 't', match });
    expect(matchState(item({ subset: ['hello'] }), '[]')).toEqual({ passed: false, detail: 'expected entries missing; the server answered "[]"' });
    expect(matchState(item({ contains: 'hi' }), 'no').detail).toMatch(/^"hi" is missing; /);
    expect(matchState(item({ contains: 'hi', absent: true }), 'hi there').detail).toMatch(/^"hi" is there, and should not be; /);
    expect(matchState(item({ numeric: 3 }), '4').detail).toMatch(/^4 is not 3 /);
  });

  it('state matching: contains, equals, subset and numeric', () => {
    const item = (match: unknown) => STATE_ITEM_SCHEMA.parse({ kind: 'state', tool: 't', match });
    expect(matchState(item({ contains: 'Speaks  BASQUE' }), 'Ane: speaks basque, lives in Bilbao').passed).toBe(true);
    expect(matchState(item({ equals: { a: [1, 2] } }), '{"a":[1,2]}').passed).toBe(true);
    expect(matchState(item({ equals: { a: [1, 2] } }), '{"a":[2,1]}').passed).toBe(false);
    expect(matchState(item({ subset: { entities: [{ name: 'Ane', observations: ['speaks Basque'] }] } }), JSON.stringify({ entities: [{ name: 'Bo', observations: [] }, { name: 'Ane', type: 'person', observations: ['lives in Bilbao', 'speaks Basque'] }] })).passed).toBe(true);
    expect(matchState(item({ numeric: 4, tolerance: 0.01 }), '4.001').passed).toBe(true);
    expect(matchState(item({ numeric: 4 }), 'four').passed).toBe(false);
    expect(jsonSubset([1], [1, 1])).toBe(false); // a multiset: one 1 does not hold two
    expect(jsonSubset([1, 1], [1])).toBe(true);
  });
});

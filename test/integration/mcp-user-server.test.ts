// A user brings their own MCP server, end to end, as the README tells them to: a third-party stateful
// server (@modelcontextprotocol/server-memory, installed from the registry) registered from the CLI,
// checked, trained on and evaluated. Calls are counted at the server boundary by a pass-through shim.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import { lastJson, runEnvace } from '../helpers/cli';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/mcp-memory');
const memoryServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

let home: string;
let outside: string;
let countFile: string;
const calls = () => (fs.existsSync(countFile) ? fs.readFileSync(countFile, 'utf8').split('\n').filter(Boolean).length : 0);

beforeAll(() => {
  home = tempHome('envace-mcp-home-');
  // The user's files live outside the data home: registration copies what it needs.
  outside = tempHome('envace-mcp-user-');
  for (const f of ['tasks.jsonl', 'seed-memory.jsonl']) fs.copyFileSync(path.join(FIXTURES, f), path.join(outside, f));
  countFile = path.join(outside, 'tool-calls.log');
});

afterAll(() => {
  for (const dir of [home, outside]) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a third-party stateful MCP server as an environment', () => {
  it('registers from the CLI with env and a seed file, copies its files into the home, and replays every gold trajectory', async () => {
    const added = await runEnvace(
      home,
      ...['envs', 'add-mcp', 'memory', '--command', process.execPath],
      ...['--arg', path.join(FIXTURES, 'count-calls.mjs'), '--arg', countFile, '--arg', memoryServer],
      ...['--env', 'MEMORY_FILE_PATH={episode_dir}/seed-memory.jsonl', '--seed', path.join(outside, 'seed-memory.jsonl')],
      // Each episode starts two node processes (the shim, the server): the default 10 s for a start-up is stretched with the load.
      ...['--tasks', path.join(outside, 'tasks.jsonl'), '--timeout-ms', String(patience(10_000)), '--json'],
    );
    expect(added.code, added.stderr).toBe(0);
    expect(lastJson(added.stdout)).toMatchObject({ id: 'memory', toolCount: 9, taskCounts: { train: 6, heldout: 3, ood: 0 }, reset: expect.stringMatching(/^restart/) });
    expect(fs.readFileSync(path.join(home, 'mcp', 'memory', 'tasks.jsonl'), 'utf8')).toBe(fs.readFileSync(path.join(outside, 'tasks.jsonl'), 'utf8'));
    fs.rmSync(path.join(outside, 'tasks.jsonl')); // the registration no longer needs the original

    const tested = await runEnvace(home, 'envs', 'test', 'memory', '--json');
    expect(tested.code, tested.stderr).toBe(0);
    expect(lastJson(tested.stdout).oracle).toEqual({ split: { train: { passed: 6, total: 6 }, heldout: { passed: 3, total: 3 }, ood: { passed: 0, total: 0 } }, failures: [] });

    const oracle = await runEnvace(home, 'eval', '--policy', 'oracle', '--env', 'memory', '--split', 'heldout', '--json');
    expect(oracle.code, oracle.stderr).toBe(0);
    expect(lastJson(oracle.stdout)).toMatchObject({ tasks: 3, success: 1 });
  });

  it("one episode's writes are invisible to the next, and the seed file stays as the user gave it", async () => {
    const engine = createEngine({ home });
    const api = inProcessClient(engine);
    try {
      const write = await api.call('envs.call', { env: 'memory', tool: 'add_observations', arguments: { observations: [{ entityName: 'Bo', contents: ['speaks Sami'] }] } });
      expect(write.ok).toBe(true);
      expect(write.observation).toContain('speaks Sami');
      const read = await api.call('envs.call', { env: 'memory', tool: 'open_nodes', arguments: { names: ['Bo'] } });
      expect(read.observation).toContain('lives in Oslo');
      expect(read.observation).not.toContain('speaks Sami');
      // A write the server refuses is an error for the agent and the console alike.
      const refused = await api.call('envs.call', { env: 'memory', tool: 'add_observations', arguments: { observations: [{ entityName: 'Nobody', contents: ['x'] }] } });
      expect(refused.ok).toBe(false);
      expect(refused.observation).toMatch(/^Error: /);
    } finally {
      await engine.close();
    }
    expect(fs.readFileSync(path.join(home, 'mcp', 'memory', 'seed', 'seed-memory.jsonl'), 'utf8')).not.toContain('Sami');
    // No episode folder outlives its episode.
    expect(fs.readdirSync(path.join(home, 'mcp', 'memory', 'episodes'))).toEqual([]);
  });

  it('trains sft+envace on it from the CLI: demonstrations are counted as data calls, the envace stage makes none at the server, and eval --run works', async () => {
    const before = calls();
    const train = await runEnvace(
      home,
      ...['train', '--env', 'memory', '--algo', 'sft+envace', '--preset', 'nano', '--steps', '2', '--json', '--set'],
      ...['sft.steps=4', 'rollout.k=2', 'rollout.tasksPerStep=2', 'rollout.maxTurns=3', 'rollout.maxTokensPerTurn=32', 'rollout.maxObservationTokens=32', 'rollout.toolSchemas=none', 'evalEvery=0'],
    );
    expect(train.code, train.stderr).toBe(0);
    const run = lastJson(train.stdout);
    expect(run).toMatchObject({ status: 'completed', step: 6 });

    const engine = createEngine({ home });
    const api = inProcessClient(engine);
    try {
      const { series } = await api.call('metrics.query', { runId: run.run, keys: ['env_calls', 'gather_env_calls'], maxPoints: 100 });
      const byKey = new Map(series.map((s) => [s.key, s]));
      const gathered = byKey.get('gather_env_calls')!.values.reduce((a, b) => a + b, 0);
      // Six expert replays of one call each gathered the data; the server saw exactly those.
      expect(gathered).toBe(6);
      expect(calls() - before).toBe(gathered);
      const rl = byKey.get('env_calls')!;
      expect(rl.steps.filter((s) => s > 4).map((s) => rl.values[rl.steps.indexOf(s)])).toEqual([0, 0]);
    } finally {
      await engine.close();
    }

    // A run evaluates in the environment it trained on: no --env needed.
    const evaluated = await runEnvace(home, 'eval', '--run', run.run, '--split', 'heldout', '--json');
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(lastJson(evaluated.stdout)).toMatchObject({ runId: run.run, tasks: 3, split: 'heldout' });
  });

  it('envs remove unregisters it and deletes its copies; a corrupt registry file leaves other commands working', async () => {
    const removed = await runEnvace(home, 'envs', 'remove', 'memory');
    expect(removed.code, removed.stderr).toBe(0);
    expect(fs.existsSync(path.join(home, 'mcp', 'memory'))).toBe(false);

    // One entry whose server is gone and one the schema refuses: each listed as unavailable, in full.
    const gone = { id: 'gone', server: { command: '/nonexistent/mcp-server', args: [] }, taskFile: path.join(FIXTURES, 'tasks.jsonl') };
    fs.writeFileSync(path.join(home, 'mcp-servers.json'), JSON.stringify([gone, { id: 'broken', server: { command: 7 } }]));
    const listed = await runEnvace(home, 'envs', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const items = lastJson(listed.stdout).items as Array<{ id: string; unavailable?: string }>;
    expect(items.find((e) => e.id === 'retail')?.unavailable).toBeUndefined();
    expect(items.find((e) => e.id === 'gone')?.unavailable).toMatch(/could not start MCP server "\/nonexistent\/mcp-server"/);
    expect(items.find((e) => e.id === 'broken')?.unavailable).toMatch(/entry 2 of .*mcp-servers.json is invalid: server/);
    const human = await runEnvace(home, 'envs', 'list');
    expect(human.stdout).toMatch(/gone .*unavailable: /);

    // A truncated file: reported, and nothing else stops.
    fs.writeFileSync(path.join(home, 'mcp-servers.json'), '[{"id": "half-writ');
    const truncated = await runEnvace(home, 'envs', 'list', '--json');
    expect(truncated.code, truncated.stderr).toBe(0);
    expect(lastJson(truncated.stdout).items.map((e: { id: string }) => e.id)).toContain('retail');
    expect(lastJson(truncated.stdout).problems[0]).toMatch(/mcp-servers.json cannot be read/);
    const runs = await runEnvace(home, 'runs', 'list', '--json');
    expect(runs.code, runs.stderr).toBe(0);
  });
});

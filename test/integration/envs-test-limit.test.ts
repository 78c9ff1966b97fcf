// `envace envs test` on a long task file: by default it replays a bounded sample of each split, spread
// over it, and says so; --all replays every task. It replayed every one (a server per episode: 100k
// tasks ran for hours), so on the probes' 100k-task file it was still running after 600 s.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_TASKS } from '../../electron/cli/commands/envs';
import { evenlySpaced } from '../../electron/engine/envs/oracle';
import { lastJson, runEnvace } from '../helpers/cli';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

const FIXTURE = path.resolve(import.meta.dirname, '../unit/engine/envs/mcp/fixture-server.mjs');
const TASKS = 3_000;
let home: string;

beforeAll(async () => {
  home = tempHome('envace-envs-test-limit-');
  const lines = Array.from({ length: TASKS }, (_, i) =>
    JSON.stringify({ id: `t${i}`, ...(i % 10 === 0 ? { split: 'heldout' } : {}), instruction: `Say ok (${i}).`, checklist: [{ kind: 'call', weight: 1, name: 'echo', arguments: { text: 'ok' } }], gold: { calls: [{ name: 'echo', arguments: { text: 'ok' } }], answer: null } }),
  );
  fs.writeFileSync(path.join(home, 'tasks-in.jsonl'), `${lines.join('\n')}\n`);
  const added = await runEnvace(home, 'envs', 'add-mcp', 'echo', '--command', process.execPath, '--arg', FIXTURE, '--tasks', path.join(home, 'tasks-in.jsonl'), '--reset', 'none', '--shared-state');
  expect(added.code, added.stderr).toBe(0);
}, patience(120_000));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('envace envs test on a long task file', () => {
  it(`replays ${DEFAULT_TEST_TASKS} tasks per split by default, says how many the split has, where it replayed every one`, async () => {
    const r = await runEnvace(home, 'envs', 'test', 'echo', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(lastJson(r.stdout).oracle).toEqual({
      split: { train: { passed: DEFAULT_TEST_TASKS, total: DEFAULT_TEST_TASKS, of: 2_700 }, heldout: { passed: DEFAULT_TEST_TASKS, total: DEFAULT_TEST_TASKS, of: 300 }, ood: { passed: 0, total: 0 } },
      failures: [],
    });
    const human = await runEnvace(home, 'envs', 'test', 'echo', '--limit', '3');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/train\s+3\/3\s+0\s+3 of 2700/);
    expect(human.stdout).toMatch(/3 per split, spread over it; --all replays every task/);
  }, patience(120_000));

  it('a bad --limit, or --limit with --all, is a usage error (exit 2)', async () => {
    for (const args of [['--limit', '0'], ['--limit', 'many'], ['--limit', '5', '--all']]) {
      const r = await runEnvace(home, 'envs', 'test', 'echo', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--limit/);
    }
  }, patience(120_000));

  it('the sample is spread from the first task to near the last, in order', () => {
    const ids = Array.from({ length: 2_700 }, (_, i) => i);
    const picked = evenlySpaced(ids, 25);
    expect(picked).toHaveLength(25);
    expect(picked[0]).toBe(0);
    expect(picked.at(-1)).toBeGreaterThan(2_500);
    expect([...picked].sort((a, b) => a - b)).toEqual(picked);
    expect(evenlySpaced([1, 2, 3], 25)).toEqual([1, 2, 3]);
  });
});

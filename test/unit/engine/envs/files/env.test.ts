import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FilesEpisode, FilesEnv } from '../../../../../electron/engine/envs/files/env';
import { generateTree, isHeldoutWord } from '../../../../../electron/engine/envs/files/tree';
import { SPLITS, type Action, type Task, type ToolCall } from '../../../../../electron/engine/envs/types';
import { runEpisode, scriptedPolicy, silentPolicy } from '../household/drive';

/** An episode whose server started (a ServerDownEpisode would fail the test here, naming why). */
async function started(env: FilesEnv, task: Task): Promise<FilesEpisode> {
  const episode = await env.reset(task, 0);
  if (!('sandboxRoot' in episode)) throw new Error(`the server did not start: ${episode.failures.join('; ')}`);
  return episode;
}

// Seven tasks per split cover every family of every split (5 in train/heldout, 2 in ood).
let env: FilesEnv;
beforeAll(async () => {
  env = await FilesEnv.create({ tasksPerSplit: 7 });
});

const tasksOf = (split: (typeof SPLITS)[number]): Task[] => env.tasks(split).map((r) => env.task(r.id));
const byFamily = (split: (typeof SPLITS)[number], family: string): Task => tasksOf(split).find((t) => t.meta!.family === family)!;
const oneCallPerTurn = (calls: ToolCall[]): Action[] => calls.map((c) => ({ kind: 'calls', calls: [c] }));

describe('files: the real MCP filesystem server', () => {
  it('offers the tools the server lists', () => {
    const names = env.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'list_directory', 'search_files', 'move_file', 'write_file']));
    expect(env.tools().find((t) => t.name === 'move_file')!.parameters).toMatchObject({ required: ['source', 'destination'] });
  });

  for (const split of SPLITS) {
    it(`the scripted expert scores 100% on every ${split} task`, async () => {
      for (const task of tasksOf(split)) {
        const run = await runEpisode(env, task, env.expert(task));
        expect(run.checklist.score, task.id).toBe(1);
        expect(run.check.passed, `${task.id}: ${JSON.stringify(run.check.checks)}`).toBe(true);
        expect(run.envCalls).toBe(task.gold.calls.length);
      }
    });

    it(`a policy that answers nothing scores 0 and fails the end-state check on every ${split} task`, async () => {
      for (const task of tasksOf(split)) {
        const run = await runEpisode(env, task, silentPolicy);
        expect(run.checklist.score, task.id).toBe(0);
        expect(run.check.passed, task.id).toBe(false);
      }
    });
  }

  it('moving to the wrong folder fails the move item and both end-state checks', async () => {
    const task = byFamily('train', 'move');
    const [move] = task.gold.calls;
    const wrong = { ...move, arguments: { ...move.arguments, destination: String(move.arguments.destination).replace('/archive/', '/docs/') } };
    const run = await runEpisode(env, task, scriptedPolicy(oneCallPerTurn([wrong])));
    expect(run.observations[1]).toMatch(/^Successfully moved \/sandbox\/inbox\/.* to \/sandbox\/docs\//);
    expect(run.checklist.score).toBe(0);
    expect(run.check.checks.map((c) => c.passed)).toEqual([false, true, true]);
    expect(run.check.checks[0].detail).toBe('no such file');
  });

  it('writing the wrong text fails the write item and the content check, reporting what was written', async () => {
    const task = byFamily('heldout', 'write');
    const [write] = task.gold.calls;
    const run = await runEpisode(env, task, scriptedPolicy(oneCallPerTurn([{ ...write, arguments: { ...write.arguments, content: 'wrong' } }])));
    expect(run.checklist.score).toBe(0);
    expect(run.check.passed).toBe(false);
    expect(run.check.checks[0].detail).toBe('content is "wrong"');
  });

  it('a wrong numeric answer fails only the answer item', async () => {
    const task = byFamily('train', 'count');
    const actions: Action[] = [...oneCallPerTurn(task.gold.calls), { kind: 'answer', text: String(Number(task.gold.answer) + 1) }];
    const run = await runEpisode(env, task, scriptedPolicy(actions));
    expect(run.checklist.items.map((i) => i.passed)).toEqual([true, false]);
    expect(run.check.passed).toBe(false);
  });

  it('observations show the /sandbox alias, never the temporary folder, and server errors come through', async () => {
    const task = byFamily('train', 'find_read');
    const episode = await started(env, task);
    const r1 = await episode.step({ kind: 'calls', calls: [{ name: 'list_allowed_directories', arguments: {} }] });
    expect(r1.observation).toBe('Allowed directories:\n/sandbox');
    const r2 = await episode.step({ kind: 'calls', calls: [{ name: 'read_text_file', arguments: { path: '/sandbox/nope.txt' } }] });
    expect(r2.observation).toBe("Error: ENOENT: no such file or directory, open '/sandbox/nope.txt'");
    const r3 = await episode.step({ kind: 'calls', calls: [{ name: 'read_text_file', arguments: { path: '/etc/passwd' } }] });
    expect(r3.observation).toMatch(/Access denied - path outside allowed directories/);
    expect(r3.observation).not.toContain(episode.sandboxRoot);
    await episode.close();
  });

  it('each episode gets a fresh sandbox that is removed on close, and repeats give identical observations', async () => {
    const task = byFamily('ood', 'find_then_move');
    const a = await started(env, task);
    const b = await started(env, task);
    expect(a.sandboxRoot).not.toBe(b.sandboxRoot);
    const tree: Action = { kind: 'calls', calls: [{ name: 'directory_tree', arguments: { path: '/sandbox' } }] };
    expect((await a.step(tree)).observation).toBe((await b.step(tree)).observation);
    await a.close();
    await b.close();
    expect(existsSync(a.sandboxRoot)).toBe(false);
    expect(existsSync(b.sandboxRoot)).toBe(false);
  });

  it('a server that cannot be started fails that episode with the reason, not the caller', async () => {
    const broken = await FilesEnv.create({ tasksPerSplit: 2 });
    // Its episode servers refuse every start, as a filesystem server that dies at start-up does.
    Object.defineProperty(broken, 'servers', { value: { acquire: async () => Promise.reject(new Error('could not start MCP server "fs": exited with code 1')) } });
    const task = broken.task(broken.tasks('train')[0].id);
    const episode = await broken.reset(task, 0);
    expect(episode.failures).toEqual(['could not start MCP server "fs": exited with code 1']);
    expect((await episode.step({ kind: 'calls', calls: task.gold.calls })).done).toBe(true);
    expect(await episode.finalCheck()).toMatchObject({ passed: false, checks: [{ name: 'the tool server started', passed: false }] });
    await episode.close();
  });

  it('a server killed mid-episode gives an error observation and a failed check; the next episode works', async () => {
    const task = byFamily('train', 'write');
    const episode = await env.reset(task, 0);
    process.kill(episode.serverPid!, 'SIGKILL');
    const r = await episode.step({ kind: 'calls', calls: task.gold.calls });
    expect(r.observation).toMatch(/^Error: the tool server (stopped during write_file|is not running)/);
    expect(episode.failures).toHaveLength(1);
    const check = await episode.finalCheck();
    expect(check.checks.find((c) => c.name === 'tool server stayed up')!.passed).toBe(false);
    await episode.close();
    const next = await runEpisode(env, task, env.expert(task));
    expect(next.check.passed).toBe(true);
  });
});

describe('files: splits and world size', () => {
  const stem = (path: string) => path.slice(path.lastIndexOf('/') + 1).replace(/(_\d+)?\.\w+$/, '');

  it('heldout sandboxes use only file names train never sees', () => {
    for (const split of ['train', 'heldout'] as const) {
      for (const task of tasksOf(split)) {
        const tree = generateTree(task.meta!.treeSeed as number, split, task.meta!.files as number);
        for (const f of tree.files) expect(isHeldoutWord(stem(f.path)), f.path).toBe(split === 'heldout');
      }
    }
  });

  it('the file count knob sets the sandbox size and is range-checked', async () => {
    const tree = generateTree(1, 'train', 20);
    expect(tree.files).toHaveLength(20);
    expect(new Set(tree.files.map((f) => f.path)).size).toBe(20);
    await expect(FilesEnv.create({ files: 3 })).rejects.toThrow(/number of files in \[6, 40\], got 3/);
  });
});

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataPath } from '../../../../electron/engine/envs/data-dir';
import { runEpisode, runOracle } from '../../../../electron/engine/envs/oracle';
import { RETAIL_TOOLS } from '../../../../electron/engine/envs/retail/tools';
import { uncheckedParts } from '../../../../electron/engine/envs/tau2/evaluate';
import { forkDb, loadFrozenDb } from '../../../../electron/engine/envs/tau2/db';
import { executeCall, loadTau2ToolSpecs } from '../../../../electron/engine/envs/tau2/tools';
import { TauRetailEnv } from '../../../../electron/engine/envs/tau-retail/env';
import { SPLITS, type Action, type Task } from '../../../../electron/engine/envs/types';

let env: TauRetailEnv;
beforeAll(() => {
  env = new TauRetailEnv();
});

const readData = <T>(...p: string[]): T => JSON.parse(readFileSync(dataPath(...p), 'utf8')) as T;
type ReplayErrors = { errors: Record<string, Array<{ task_index: number; action_index: number; action: string; error: string }>> };
const recorded = readData<ReplayErrors>('tau-bench', 'replay_errors_under_tau2_tools.json').errors;

describe('tau-retail env (pretrained track)', () => {
  it('our retail tools fail exactly the v1 gold actions that tau2 tools fail (recorded upstream)', () => {
    const specs = loadTau2ToolSpecs('retail');
    const base = loadFrozenDb(dataPath('tau2-bench', 'domains', 'retail', 'db.json'));
    for (const file of ['train', 'test', 'dev']) {
      const tasks = readData<Array<{ actions: Array<{ name: string; kwargs: Record<string, never> }> }>>('tau-bench', 'retail', `tasks_${file}.json`);
      const got: string[] = [];
      tasks.forEach((t, i) => {
        const db = forkDb(base);
        t.actions.forEach((a, j) => {
          const out = executeCall(RETAIL_TOOLS, specs, db, { name: a.name, arguments: a.kwargs }).observation;
          if (out.startsWith('Error:')) got.push(`${i}/${j}/${a.name}/${out.slice('Error: '.length)}`);
        });
      });
      const want = (recorded[`retail/tasks_${file}.json`] ?? []).map((e) => `${e.task_index}/${e.action_index}/${e.action}/${e.error}`);
      expect(got.sort(), file).toEqual(want.sort());
    }
  });

  it('train = v1 train minus the tasks whose gold fails under tau2 rules; tau2 tasks are held out', () => {
    const failing = new Set(recorded['retail/tasks_train.json'].map((e) => `v1-train-${e.task_index}`));
    expect(failing.size).toBe(43);
    expect(new Set(env.excluded.map((e) => e.id))).toEqual(failing);
    const train = env.tasks('train');
    expect(train.length).toBe(500 - 43);
    expect(train.every((t) => t.id.startsWith('v1-train-'))).toBe(true);
    const split = readData<{ train: string[]; test: string[] }>('tau2-bench', 'domains', 'retail', 'split_tasks.json');
    expect(env.tasks('heldout').map((t) => t.id)).toEqual(split.test.map((id) => `tau2-${id}`));
    expect(env.tasks('ood').map((t) => t.id)).toEqual(split.train.map((id) => `tau2-${id}`));
  });

  it('no v1 test task (and so none of the 108 tau2 tasks built from them) is in train', () => {
    const v1Test = readData<Array<{ instruction: string; actions: unknown[] }>>('tau-bench', 'retail', 'tasks_test.json');
    const testInstructions = new Set(v1Test.map((t) => t.instruction.trim()));
    const trainTickets = env.tasks('train').map((t) => t.instruction.split('\n').slice(1).join('\n'));
    expect(trainTickets.filter((t) => testInstructions.has(t))).toEqual([]);
    const testGold = new Set(v1Test.map((t) => JSON.stringify(t.actions)));
    const heldGold = new Set([...env.tasks('heldout'), ...env.tasks('ood')].map((r) => JSON.stringify(env.task(r.id).gold.calls)));
    for (const r of env.tasks('train')) {
      const gold = JSON.stringify(env.task(r.id).gold.calls);
      expect(heldGold.has(gold), r.id).toBe(false);
      expect(testGold.has(JSON.stringify(env.task(r.id).gold.calls.map((c) => ({ name: c.name, kwargs: c.arguments })))), r.id).toBe(false);
    }
  });

  it('gold replay reproduces the expected end state on every checkable task (oracle = 100%); NL-judged tasks are unchecked, not passed', async () => {
    const unchecked: Record<string, number> = {};
    for (const split of SPLITS) {
      const r = await runOracle(env, split);
      const checkable = r.perTask.filter((t) => uncheckedParts(t.envCheck).length === 0);
      expect(checkable.filter((t) => !t.success || t.score !== 1).map((t) => [t.taskId, t.envCheck.checks])).toEqual([]);
      expect(r.perTask.filter((t) => t.score !== 1)).toEqual([]);
      // A task whose reward needs an LLM judge is never claimed as a success.
      expect(r.perTask.filter((t) => uncheckedParts(t.envCheck).length > 0 && t.success)).toEqual([]);
      unchecked[split] = r.perTask.length - checkable.length;
      // The oracle's own figures say the same: 100% of what can be checked, the rest counted apart.
      expect({ checkedSuccess: r.checkedSuccess, unchecked: r.unchecked }).toEqual({ checkedSuccess: 1, unchecked: unchecked[split] });
    }
    // tau2 retail tasks with NL_ASSERTION in the reward basis and at least one assertion.
    expect(unchecked).toEqual({ train: 0, heldout: 11, ood: 29 });
  });

  it('tasks whose gold writes succeed end in a different state than the untouched DB', () => {
    const changed = env.tasks('train').filter((r) => env.expectedHash(r.id) !== env.initialHash());
    const withWrites = env.tasks('train').filter((r) => env.task(r.id).checklist.some((i) => i.kind === 'call'));
    expect(changed.length).toBe(withWrites.length);
  });

  it('a policy that answers nothing scores 0 wherever the gold writes or says something', async () => {
    let n = 0;
    for (const split of SPLITS) {
      for (const ref of env.tasks(split)) {
        const task = env.task(ref.id);
        if (!task.checklist.some((i) => i.kind === 'call' || i.kind === 'communicate')) continue;
        const r = await runEpisode(env, task, () => ({ kind: 'answer', text: '' }));
        expect(r.score, task.id).toBe(0);
        // tau2's own reward for these tasks is DB-only, so silence passes when the gold writes nothing.
        const basis = task.meta?.rewardBasis as string[];
        const mustFail =
          env.expectedHash(task.id) !== env.initialHash() || (basis.includes('COMMUNICATE') && task.checklist.some((c) => c.kind === 'communicate'));
        if (mustFail) expect(r.success, task.id).toBe(false);
        n++;
      }
    }
    expect(n).toBeGreaterThan(400);
  });

  it('one wrong argument fails that write item, the DB check, and nothing else', async () => {
    const task = env.task(env.tasks('train').find((r) => env.task(r.id).gold.calls.some((c) => c.name === 'cancel_pending_order'))!.id) as Task;
    const calls = task.gold.calls.map((c) =>
      c.name === 'cancel_pending_order'
        ? { ...c, arguments: { ...c.arguments, reason: c.arguments.reason === 'no longer needed' ? 'ordered by mistake' : 'no longer needed' } }
        : c,
    );
    let i = 0;
    const r = await runEpisode(env, task, (): Action =>
      i < calls.length ? { kind: 'calls', calls: [calls[i++]] } : { kind: 'answer', text: task.gold.answer ?? '' },
    );
    expect(r.checklist.items.filter((x) => !x.passed).map((x) => x.description)).toEqual([expect.stringContaining('called cancel_pending_order')]);
    expect(r.envCheck.checks.find((c) => c.name === 'DB')?.passed).toBe(false);
  });

  it('tau2 tasks: NL assertions are unchecked, never passed; communicate_info is not scored where the reward basis lacks COMMUNICATE', async () => {
    const raw = readData<Array<{ id: string; evaluation_criteria: { communicate_info?: string[]; nl_assertions?: string[] } }>>('tau2-bench', 'domains', 'retail', 'tasks.json');
    const withBoth = raw.find((t) => t.evaluation_criteria.communicate_info?.length && t.evaluation_criteria.nl_assertions?.length)!;
    const task = env.task(`tau2-${withBoth.id}`);
    expect(task.meta?.rewardBasis).toEqual(['DB', 'NL_ASSERTION']);
    expect(task.checklist.some((c) => c.kind === 'communicate')).toBe(false);
    const r = await runEpisode(env, task, env.expert(task));
    expect(r.envCheck.checks.find((c) => c.name === 'NL_ASSERTION')).toMatchObject({ skipped: true, passed: false });
    expect(r.envCheck.checks.find((c) => c.name === 'DB')?.passed).toBe(true);
    expect(r.envCheck.checks.some((c) => c.name === 'COMMUNICATE')).toBe(false);
    expect([r.success, r.score]).toEqual([false, 1]);
  });
});

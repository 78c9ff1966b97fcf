import { beforeAll, describe, expect, it } from 'vitest';
import { MockEnv } from '../../../../electron/engine/envs/mock/env';
import { callTool, runEpisode, runOracle } from '../../../../electron/engine/envs/oracle';
import { dbHash, forkDb } from '../../../../electron/engine/envs/tau2/db';
import type { Action, Task } from '../../../../electron/engine/envs/types';

let env: MockEnv;
beforeAll(() => {
  env = new MockEnv();
});

const answerNothing = (): Action => ({ kind: 'answer', text: '' });

describe('mock env (tau2 mock domain)', () => {
  it('exposes the 10 tau2 mock tasks with agent + user tools', () => {
    expect(env.tasks('heldout').length).toBe(10);
    expect(env.tasks('ood')).toEqual([]);
    expect(
      env
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['check_notifications', 'create_task', 'dismiss_notification', 'get_users', 'transfer_to_human_agents', 'update_task_status'].sort());
  });

  it('the scripted expert scores 100% through the real env on every task it can check, on every split', async () => {
    for (const split of ['train', 'heldout'] as const) {
      const r = await runOracle(env, split);
      const checkable = r.perTask.filter((t) => !t.checklist.unchecked);
      expect(checkable.filter((t) => !t.success || t.score !== 1).map((t) => [t.taskId, t.envCheck, t.checklist.items])).toEqual([]);
      // The one task judged only in words (nl-assertions.test.ts): unchecked, never a success.
      expect(r.perTask.filter((t) => t.checklist.unchecked).map((t) => [t.taskId, t.success, t.unchecked])).toEqual([['create_task_1_nl_eval', false, ['NL_ASSERTION']]]);
      expect(r.checkedSuccess).toBe(1);
      expect(r.envCalls).toBeGreaterThan(0);
    }
  });

  it('a policy that answers nothing scores 0 on every task whose gold does something', async () => {
    const doing = env
      .tasks('heldout')
      .map((r) => env.task(r.id))
      .filter((t) => t.gold.calls.length > 0 || t.checklist.some((i) => i.kind === 'communicate'));
    expect(doing.length).toBe(9);
    for (const task of doing) {
      const r = await runEpisode(env, task, answerNothing);
      expect(r.score, task.id).toBe(0);
    }
  });

  it('one wrong argument fails the matching checklist item and the tau2 checks', async () => {
    const task = env.task('update_task_1');
    const wrong: Action = { kind: 'calls', calls: [{ name: 'update_task_status', arguments: { task_id: 'task_1', status: 'pending' } }] };
    let sent = false;
    const r = await runEpisode(env, task, () => (sent ? { kind: 'answer', text: 'Done.' } : ((sent = true), wrong)));
    const item = r.checklist.items.find((i) => i.kind === 'call' && i.description.includes('update_task_status'));
    expect(item?.passed).toBe(false);
    expect(item?.detail).toContain('"status":"pending"');
    expect(r.score).toBe(0);
    expect(r.envCheck.checks.find((c) => c.name === 'DB')?.passed).toBe(false);
    expect(r.success).toBe(false);
  });

  it("gold replay reproduces each task's expected end state by DB hash, and write tasks change it", async () => {
    for (const ref of env.tasks('heldout')) {
      const task = env.task(ref.id);
      const ep = await env.reset(task, 0);
      const actions = (task.meta?.rewardBasis as string[]).includes('DB') ? task.gold.calls : [];
      for (const c of actions) await ep.step({ kind: 'calls', calls: [c] });
      const check = await ep.finalCheck();
      const db = check.checks.find((c) => c.name === 'DB');
      if (db) expect(db.passed, task.id).toBe(true);
    }
    // create_task changes the agent DB, so its expected hash differs from the untouched state's.
    const untouched = await env.reset(env.task('create_task_1'), 0);
    const check = await untouched.finalCheck();
    expect(check.checks.find((c) => c.name === 'DB')?.passed).toBe(false);
  });

  it('tools behave per the policy: create, update, refuse unknown ids', async () => {
    const ep = await env.reset(env.task('create_task_1'), 0);
    const created = await ep.step({ kind: 'calls', calls: [{ name: 'create_task', arguments: { user_id: 'user_1', title: 'Important Meeting' } }] });
    expect(JSON.parse(created.observation)).toEqual({ task_id: 'task_2', title: 'Important Meeting', description: null, status: 'pending' });
    const users = await ep.step({ kind: 'calls', calls: [{ name: 'get_users', arguments: {} }] });
    expect(JSON.parse(users.observation)[0].tasks).toEqual(['task_1', 'task_2']);
    const missing = await ep.step({ kind: 'calls', calls: [{ name: 'create_task', arguments: { user_id: 'nobody', title: 'x' } }] });
    expect(missing.observation).toBe('Error: User nobody not found');
    const bad = await ep.step({ kind: 'calls', calls: [{ name: 'update_task_status', arguments: { task_id: 'task_9', status: 'completed' } }] });
    expect(bad.observation).toBe('Error: Task task_9 not found');
    const proto = await ep.step({ kind: 'calls', calls: [{ name: 'create_task', arguments: { user_id: '__proto__', title: 'x' } }] });
    expect(proto.observation).toBe('Error: User __proto__ not found');
    const inherited = await ep.step({ kind: 'calls', calls: [{ name: 'update_task_status', arguments: { task_id: 'toString', status: 'completed' } }] });
    expect(inherited.observation).toBe('Error: Task toString not found');
  });

  it('episodes are isolated: a write in one is invisible to the next', async () => {
    const task = env.task('create_task_1');
    const a = await env.reset(task, 0);
    await a.step({ kind: 'calls', calls: [{ name: 'create_task', arguments: { user_id: 'user_1', title: 'A' } }] });
    const b = await env.reset(task, 0);
    const users = await b.step({ kind: 'calls', calls: [{ name: 'get_users', arguments: {} }] });
    expect(JSON.parse(users.observation)[0].tasks).toEqual(['task_1']);
  });

  it('initial state: message history and initialization actions create task_2 before the agent acts', async () => {
    for (const id of ['update_task_with_message_history', 'update_task_with_initialization_actions', 'update_task_with_initialization_data']) {
      const ep = await env.reset(env.task(id), 0);
      const users = await ep.step({ kind: 'calls', calls: [{ name: 'get_users', arguments: {} }] });
      expect(JSON.parse(users.observation)[0].tasks, id).toEqual(['task_1', 'task_2']);
    }
    expect((await env.reset(env.task('update_task_with_message_history'), 0)).initialObservation).toContain('assistant called create_task');
  });

  it('env assertions gate ENV_ASSERTION tasks, and NL assertions are reported as skipped', async () => {
    const task = env.task('update_task_with_history_and_env_assertions');
    const r = await runEpisode(env, task, answerNothing);
    expect(r.envCheck.checks.find((c) => c.name === 'ENV_ASSERTION')?.passed).toBe(false);
    expect(r.envCheck.checks.find((c) => c.name === 'NL_ASSERTION')).toMatchObject({ skipped: true });
    expect(r.success).toBe(false);
  });

  it('an unknown tool is a format error that zeroes the checklist', async () => {
    const task: Task = env.task('update_task_1');
    const ep = await env.reset(task, 0);
    const out = await ep.step({ kind: 'calls', calls: [{ name: 'delete_task', arguments: {} }] });
    expect(out.observation).toBe("Error: Tool 'delete_task' not found");
    // The expert's run plus one bad call: everything else right, still 0.
    const expert = env.expert(task);
    let bad = true;
    const r = await runEpisode(env, task, (obs) =>
      bad ? ((bad = false), { kind: 'calls', calls: [{ name: 'delete_task', arguments: {} }] }) : expert.next(obs),
    );
    expect(r.checklist.formatError).toBe(true);
    expect(r.checklist.items.every((i) => i.passed)).toBe(true);
    expect(r.score).toBe(0);
    expect(r.success).toBe(false);
  });

  it('callTool runs one call in a fresh episode and returns errors as observations', async () => {
    const ok = await callTool(env, 'get_users', {});
    expect(ok.ok).toBe(true);
    expect(JSON.parse(ok.observation)[0].user_id).toBe('user_1');
    const bad = await callTool(env, 'update_task_status', { task_id: 'task_1', status: 'done' });
    expect(bad).toEqual({
      ok: false,
      observation: "Error: invalid arguments for update_task_status: 'done' is not one of ['pending', 'completed'] at /status",
    });
  });

  it('forkDb and dbHash: equal content hashes equal whatever the key order', () => {
    const a = forkDb({ t: { x: { b: 1, a: [1, 2] } } });
    const b = forkDb({ t: { x: { a: [1, 2], b: 1 } } });
    expect(dbHash(a)).toBe(dbHash(b));
    expect(dbHash(a)).not.toBe(dbHash(forkDb({ t: { x: { a: [2, 1], b: 1 } } })));
  });
});

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataPath } from '../../../../../electron/engine/envs/data-dir';
import { runEpisode, runOracle } from '../../../../../electron/engine/envs/oracle';
import { getEnv } from '../../../../../electron/engine/envs/registry';
import { TelecomEnv } from '../../../../../electron/engine/envs/telecom/env';
import type { Action, Task, ToolCall } from '../../../../../electron/engine/envs/types';

let env: TelecomEnv;
beforeAll(() => {
  env = new TelecomEnv();
});

const allTasks = (): Task[] => [...env.tasks('train'), ...env.tasks('heldout')].map((r) => env.task(r.id));
const answerNothing = (): Action => ({ kind: 'answer', text: '' });

/** A policy that sends these calls one per turn, then answers. */
function scripted(calls: readonly ToolCall[]): () => Action {
  let i = 0;
  return () => (i < calls.length ? { kind: 'calls', calls: [calls[i++]] } : { kind: 'answer', text: 'Done.' });
}

async function replay(task: Task, calls: readonly ToolCall[]) {
  const ep = await env.reset(task, 0);
  for (const c of calls) await ep.step({ kind: 'calls', calls: [c] });
  return ep;
}

describe('tau2-telecom env (solo mode)', () => {
  it('holds the 114 base tasks split as split_tasks.json, and every agent and user tool', () => {
    const splits = JSON.parse(readFileSync(dataPath('tau2-bench', 'domains', 'telecom', 'split_tasks.json'), 'utf8')) as Record<string, string[]>;
    expect(
      env
        .tasks('train')
        .map((t) => t.id)
        .sort(),
    ).toEqual([...splits.train].sort());
    expect(
      env
        .tasks('heldout')
        .map((t) => t.id)
        .sort(),
    ).toEqual([...splits.test].sort());
    expect(env.tasks('ood')).toEqual([]);
    expect(allTasks().length).toBe(114);
    const schemas = JSON.parse(readFileSync(dataPath('tau2-bench', 'tool_schemas.generated.json'), 'utf8')).telecom;
    const expected = [...schemas.agent_tools, ...schemas.user_tools].map((t: { function: { name: string } }) => t.function.name);
    expect(env.tools().map((t) => t.name)).toEqual(expected);
    expect(env.task(env.tasks('train')[0].id).instruction).toMatch(/^The user is experiencing/);
  });

  it("tau2's reward rule: replaying each task's gold calls reproduces its expected end state and passes its checks", async () => {
    for (const task of allTasks()) {
      const ep = await replay(task, task.gold.calls);
      expect(ep.stateHash(), task.id).toBe(env.expectedHash(task.id));
      const check = await ep.finalCheck();
      expect(check.passed, `${task.id}: ${JSON.stringify(check.checks)}`).toBe(true);
      expect(check.checks.map((c) => c.name)).toEqual(task.meta?.rewardBasis);
      // Every task starts broken: the untouched world fails, and unless the gold only hands
      // over to a human (which changes nothing), it is a different state from the gold one.
      const untouched = await env.reset(task, 0);
      expect((await untouched.finalCheck()).passed, task.id).toBe(false);
      if (task.gold.calls.some((c) => c.name !== 'transfer_to_human_agents'))
        expect(untouched.stateHash(), task.id).not.toBe(env.expectedHash(task.id));
      else expect(untouched.stateHash(), task.id).toBe(env.expectedHash(task.id));
    }
  });

  it('the oracle (gold replay through the text grammar) scores 100% on every split', async () => {
    for (const split of ['train', 'heldout'] as const) {
      const r = await runOracle(env, split);
      expect(r.perTask.filter((t) => !t.success || t.score !== 1).map((t) => [t.taskId, t.envCheck])).toEqual([]);
      expect(r.perTask.length).toBe(env.tasks(split).length);
      expect(r.score).toBe(1);
      expect(r.success).toBe(1);
    }
  });

  it('a policy that answers nothing scores 0 and fails every task', async () => {
    for (const task of allTasks()) {
      const r = await runEpisode(env, task, answerNothing);
      expect(r.score, task.id).toBe(0);
      expect(r.success, task.id).toBe(false);
    }
  });

  it('dropping any one gold call fails the task (reboots aside: another re-registration can stand in)', async () => {
    let ablations = 0;
    for (const task of allTasks()) {
      for (const [skip, c] of task.gold.calls.entries()) {
        if (c.name === 'reboot_device') continue;
        ablations++;
        const ep = await replay(
          task,
          task.gold.calls.filter((_, i) => i !== skip),
        );
        expect((await ep.finalCheck()).passed, `${task.id} without ${c.name}`).toBe(false);
      }
    }
    expect(ablations).toBeGreaterThan(allTasks().length);
  });

  it('a wrong refuel amount fails the refuel checklist item and the refuelling assertion', async () => {
    const task = allTasks().find((t) => t.gold.calls.some((c) => c.name === 'refuel_data') && t.gold.calls.length === 2);
    if (!task) throw new Error('no two-call refuel task');
    const gold = task.gold.calls.find((c) => c.name === 'refuel_data') as ToolCall;
    const wrong = task.gold.calls.map((c) =>
      c === gold ? { ...c, arguments: { ...c.arguments, gb_amount: Number(gold.arguments.gb_amount) / 2 } } : c,
    );
    const r = await runEpisode(env, task, scripted(wrong));
    const item = r.checklist.items.find((i) => i.description.startsWith('called refuel_data'));
    expect(item?.passed).toBe(false);
    expect(item?.detail).toContain(`"gb_amount":${Number(gold.arguments.gb_amount) / 2}`);
    expect(r.checklist.items.filter((i) => !i.passed)).toEqual([item]);
    expect(r.score).toBeLessThan(1);
    expect(r.envCheck.checks.find((c) => c.name === 'ENV_ASSERTION')?.detail).toContain('assert_data_refueling_amount');
    expect(r.success).toBe(false);
  });

  it('a wrong network mode fails the mode checklist item and the speed assertion', async () => {
    const task = allTasks().find((t) => t.id.startsWith('[mobile_data_issue]') && t.gold.calls.some((c) => c.name === 'set_network_mode_preference'));
    if (!task) throw new Error('no network-mode data task');
    const wrong = task.gold.calls.map((c) => (c.name === 'set_network_mode_preference' ? { ...c, arguments: { mode: '3g_only' } } : c));
    const r = await runEpisode(env, task, scripted(wrong));
    const failed = r.checklist.items.filter((i) => !i.passed);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      description: expect.stringContaining('set_network_mode_preference'),
      detail: expect.stringContaining('3g_only'),
    });
    expect(r.envCheck.checks.find((c) => c.name === 'ENV_ASSERTION')?.detail).toContain('assert_internet_speed');
    expect(r.success).toBe(false);
  });

  it('transfer tasks pass ACTION with any summary, and fail it without the transfer', async () => {
    const task = allTasks().find((t) => (t.meta?.rewardBasis as string[]).includes('ACTION'));
    if (!task) throw new Error('no ACTION task');
    const ok = await runEpisode(env, task, scripted([{ name: 'transfer_to_human_agents', arguments: { summary: 'SIM is PIN-locked' } }]));
    expect(ok.success).toBe(true);
    const none = await runEpisode(env, task, answerNothing);
    expect(none.envCheck.checks.find((c) => c.name === 'ACTION')).toMatchObject({ passed: false, detail: 'missing: transfer_to_human_agents' });
    expect(none.envCheck.checks.find((c) => c.name === 'ENV_ASSERTION')?.passed).toBe(true);
  });

  it('is registered as a pretrained-track env', async () => {
    const viaRegistry = await getEnv('tau2-telecom');
    expect(viaRegistry.track).toBe('pretrained');
    expect(viaRegistry.tasks('heldout').length).toBe(env.tasks('heldout').length);
    expect(env.policy()).toContain('Telecom Agent Policy');
  });
});

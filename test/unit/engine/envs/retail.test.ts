import { beforeAll, describe, expect, it } from 'vitest';
import { runEpisode, runOracle } from '../../../../electron/engine/envs/oracle';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import { FAMILIES } from '../../../../electron/engine/envs/retail/families';
import { WorldConfigError } from '../../../../electron/engine/envs/retail/world';
import { SPLITS, type Action, type Task, type ToolCall } from '../../../../electron/engine/envs/types';

let env: RetailEnv;
beforeAll(() => {
  env = new RetailEnv();
});

const allTasks = (e: RetailEnv, split: (typeof SPLITS)[number]): Task[] => e.tasks(split).map((r) => e.task(r.id));

/** Replays the gold calls, changing one call's arguments, then gives the gold answer. */
function goldWith(task: Task, index: number, change: (c: ToolCall) => ToolCall): () => Action {
  const calls = task.gold.calls.map((c, i) => (i === index ? change(c) : c));
  let i = 0;
  return () => (i < calls.length ? { kind: 'calls', calls: [calls[i++]] } : { kind: 'answer', text: task.gold.answer ?? '' });
}

describe('retail env (from-scratch track)', () => {
  it('the scripted expert scores 100% through the real env on every split', async () => {
    for (const split of SPLITS) {
      const r = await runOracle(env, split);
      expect(r.perTask.length, split).toBeGreaterThan(0);
      expect(r.perTask.filter((t) => !t.success || t.score !== 1).map((t) => t.taskId)).toEqual([]);
      expect(r.score).toBe(1);
      expect(r.success).toBe(1);
      expect(r.envCalls).toBe(r.perTask.reduce((s, t) => s + env.task(t.taskId).gold.calls.length, 0));
    }
  });

  it('the expert also scores 100% in a tiny and a large world', async () => {
    for (const worldSize of [5, 200]) {
      const e = new RetailEnv({ worldSize, counts: { train: 40, heldout: 20, ood: 20 } });
      for (const split of SPLITS) {
        const r = await runOracle(e, split);
        expect([worldSize, split, r.score, r.success]).toEqual([worldSize, split, 1, 1]);
      }
    }
  });

  it('a policy that answers nothing scores 0, except the "did not write" item of impossible requests, and never succeeds', async () => {
    for (const split of SPLITS) {
      for (const task of allTasks(env, split)) {
        const r = await runEpisode(env, task, () => ({ kind: 'answer', text: '' }));
        const total = task.checklist.reduce((s, i) => s + i.weight, 0);
        const free = task.checklist.filter((i) => i.kind === 'no-call').reduce((s, i) => s + i.weight, 0);
        expect(r.score, task.id).toBeCloseTo(free / total, 12);
        expect(r.success, task.id).toBe(false);
        if (task.meta?.kind !== 'impossible') expect(r.score).toBe(0);
      }
    }
  });

  it('one wrong argument fails exactly the checklist item of that call', async () => {
    const tasks = allTasks(env, 'train');
    const cancel = tasks.find((t) => t.meta?.family === 'cancel-pending') as Task;
    const last = cancel.gold.calls.length - 1;
    const otherReason = (c: ToolCall): ToolCall => ({
      ...c,
      arguments: { ...c.arguments, reason: c.arguments.reason === 'no longer needed' ? 'ordered by mistake' : 'no longer needed' },
    });
    const r = await runEpisode(env, cancel, goldWith(cancel, last, otherReason));
    const failed = r.checklist.items.filter((i) => !i.passed);
    expect(failed.map((i) => i.description)).toEqual([
      `called cancel_pending_order with order_id = ${cancel.gold.calls[last].arguments.order_id}, reason = ${cancel.gold.calls[last].arguments.reason}`,
    ]);
    expect(r.envCheck.checks.find((c) => c.name === 'DB')?.passed).toBe(false);
    expect(r.success).toBe(false);

    const lookup = tasks.find((t) => t.meta?.family === 'order-status') as Task;
    const wrongOrder = await runEpisode(
      env,
      lookup,
      goldWith(lookup, 0, (c) => ({ ...c, arguments: { order_id: '#W0000000' } })),
    );
    expect(wrongOrder.checklist.items.filter((i) => !i.passed).map((i) => i.kind)).toEqual(['call']);
    expect(wrongOrder.envCheck.checks.find((c) => c.name === 'DB')?.passed).toBe(true);
  });

  it('a write task checked by DB hash: the right write passes, no write fails, read-only tasks keep the initial hash', async () => {
    const write = allTasks(env, 'train').find((t) => t.meta?.family === 'change-address') as Task;
    const noWrite = await runEpisode(env, write, () => ({ kind: 'answer', text: 'done' }));
    expect(noWrite.envCheck.checks.find((c) => c.name === 'DB')?.passed).toBe(false);
    expect(noWrite.envCheck.checks.find((c) => c.name === 'ANSWER')?.passed).toBe(true);
    const ep = await env.reset(allTasks(env, 'train').find((t) => t.meta?.kind === 'lookup') as Task, 0);
    expect((await ep.finalCheck()).passed).toBe(false); // no answer yet
    expect((await ep.finalCheck()).checks.find((c) => c.name === 'DB')?.passed).toBe(true);
  });

  it('splits: heldout users and orders never appear in train; ood templates never appear in train or heldout', () => {
    const entities = (split: 'train' | 'heldout'): Set<string> => {
      const out = new Set<string>();
      for (const t of allTasks(env, split)) {
        for (const c of t.gold.calls) {
          for (const k of ['user_id', 'order_id']) if (typeof c.arguments[k] === 'string') out.add(String(c.arguments[k]));
          if (c.name === 'find_user_id_by_name_zip') out.add(`${c.arguments.first_name} ${c.arguments.last_name} ${c.arguments.zip}`);
        }
      }
      return out;
    };
    const train = entities('train');
    const held = [...entities('heldout')];
    expect(held.length).toBeGreaterThan(0);
    expect(held.filter((x) => train.has(x))).toEqual([]);
    const fam = (split: (typeof SPLITS)[number]) => new Set(allTasks(env, split).map((t) => String(t.meta?.family)));
    const ood = fam('ood');
    expect([...fam('train')].filter((f) => ood.has(f))).toEqual([]);
    expect([...fam('heldout')].filter((f) => ood.has(f))).toEqual([]);
    expect([...fam('train')].sort()).toEqual(
      FAMILIES.filter((f) => f.splits.includes('train'))
        .map((f) => f.id)
        .sort(),
    );
    // Every task family of the brief is present: look-ups, chains, writes, impossible requests.
    expect(new Set(allTasks(env, 'train').map((t) => t.meta?.kind))).toEqual(new Set(['lookup', 'chain', 'write', 'impossible']));
  });

  it('the world size knob bounds the users in play; generation is deterministic per seed', () => {
    const small = new RetailEnv({ worldSize: 5, counts: { train: 30, heldout: 10, ood: 10 } });
    expect(small.world.users.train.length).toBe(4);
    expect(small.world.users.heldout.length).toBe(1);
    const users = new Set(small.world.users.ood);
    for (const split of SPLITS) {
      for (const t of allTasks(small, split))
        for (const c of t.gold.calls) if (c.arguments.user_id) expect(users.has(String(c.arguments.user_id))).toBe(true);
    }
    const again = new RetailEnv({ worldSize: 5, counts: { train: 30, heldout: 10, ood: 10 } });
    expect(allTasks(again, 'train')).toEqual(allTasks(small, 'train'));
    const reseeded = new RetailEnv({ worldSize: 5, seed: 1, counts: { train: 30, heldout: 10, ood: 10 } });
    expect(allTasks(reseeded, 'train').map((t) => t.instruction)).not.toEqual(allTasks(small, 'train').map((t) => t.instruction));
    expect(() => new RetailEnv({ worldSize: 2 })).toThrow(WorldConfigError);
    expect(() => new RetailEnv({ worldSize: 100_000 })).toThrow(/world size must be an integer in \[5, 438\]/);
    expect(() => new RetailEnv({ counts: { train: -1 } })).toThrow(WorldConfigError);
  });

  it('episodes are isolated and count their env calls', async () => {
    const task = allTasks(env, 'train').find((t) => t.meta?.family === 'cancel-pending') as Task;
    const orderId = String(task.gold.calls[task.gold.calls.length - 1].arguments.order_id);
    const a = await env.reset(task, 0);
    await a.step({ kind: 'calls', calls: [task.gold.calls[task.gold.calls.length - 1]] });
    const b = await env.reset(task, 0);
    const seen = await b.step({ kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: orderId } }] });
    expect(JSON.parse(seen.observation).status).toBe('pending');
    const again = await a.step({ kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: orderId } }] });
    expect(JSON.parse(again.observation).status).toBe('cancelled');
    expect(a.cost().envCalls).toBe(2);
    expect(b.cost().envCalls).toBe(1);
  });

  it('the episode ends at the turn budget and refuses steps after the end', async () => {
    const task = allTasks(env, 'train')[0];
    const ep = await env.reset(task, 0);
    let last = { observation: '', done: false };
    for (let i = 0; i < task.maxTurns; i++) last = await ep.step({ kind: 'calls', calls: [{ name: 'list_all_product_types', arguments: {} }] });
    expect(last.done).toBe(true);
    expect(await ep.step({ kind: 'answer', text: 'x' })).toEqual({ observation: 'Error: the episode has ended', done: true });
  });

  it('unknown task ids are a clear error', () => {
    expect(() => env.task('train-9999-nope')).toThrow("retail has no task 'train-9999-nope'");
    expect(() => env.task('toString-0')).toThrow("retail has no task 'toString-0'");
  });
});

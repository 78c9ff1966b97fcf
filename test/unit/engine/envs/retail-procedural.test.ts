import { beforeAll, describe, expect, it } from 'vitest';
import { runEpisode, runOracle } from '../../../../electron/engine/envs/oracle';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import { FAMILIES } from '../../../../electron/engine/envs/retail/families';
import { entityBucket, proceduralWorld } from '../../../../electron/engine/envs/retail/procedural';
import { WorldConfigError } from '../../../../electron/engine/envs/retail/world';
import { dbHash, forkDb, type JsonObject } from '../../../../electron/engine/envs/tau2/db';
import { SPLITS, type Action, type Split, type Task } from '../../../../electron/engine/envs/types';

type Rec = JsonObject;
let env: RetailEnv;
beforeAll(() => {
  env = new RetailEnv({ worldMode: 'procedural', worldSize: 8 });
});

/** The file's env (a callback's own `env` shadows it). */
const sharedEnv = (): RetailEnv => env;
const allTasks = (e: RetailEnv, split: Split): Task[] => e.tasks(split).map((r) => e.task(r.id));

/** Every string that names something in a task's world or request: ids, names, e-mails, addresses, products. */
function entitiesOf(e: RetailEnv, task: Task): string[] {
  const db = e.worldOf(task);
  const out: string[] = [];
  const address = (a: Rec) => out.push(String(a.address1), String(a.city), String(a.zip), `${a.address1}|${a.city}|${a.zip}`);
  for (const u of Object.values(db.users as Rec) as Rec[]) {
    const name = u.name as Rec;
    out.push(String(u.user_id), String(name.first_name), String(name.last_name), `${name.first_name} ${name.last_name}`, String(u.email));
    address(u.address as Rec);
    out.push(...Object.keys(u.payment_methods as Rec));
  }
  for (const o of Object.values(db.orders as Rec) as Rec[]) {
    out.push(String(o.order_id));
    for (const f of o.fulfillments as Rec[]) out.push(...(f.tracking_id as string[]));
  }
  for (const p of Object.values(db.products as Rec) as Rec[]) out.push(String(p.product_id), String(p.name), ...Object.keys(p.variants as Rec));
  // The request's own values: a new address to move to is an entity too.
  const params = task.meta?.params as Rec;
  if (typeof params.address1 === 'string') address(params);
  return out;
}

describe('retail, procedural worlds', () => {
  it('the scripted expert scores 100% through the real tools on every split, at several world sizes', async () => {
    for (const split of SPLITS) {
      const r = await runOracle(env, split);
      expect(r.perTask.length, split).toBe(split === 'train' ? 200 : 50);
      expect(r.perTask.filter((t) => !t.success || t.score !== 1).map((t) => t.taskId)).toEqual([]);
      expect(r.envCalls).toBe(r.perTask.reduce((s, t) => s + env.task(t.taskId).gold.calls.length, 0));
    }
    for (const worldSize of [1, 60]) {
      const e = new RetailEnv({ worldMode: 'procedural', worldSize, counts: { train: 24, heldout: 12, ood: 12 } });
      for (const split of SPLITS) {
        const r = await runOracle(e, split);
        expect([worldSize, split, r.perTask.length, r.score, r.success]).toEqual([worldSize, split, split === 'train' ? 24 : 12, 1, 1]);
      }
    }
  });

  it('every task has its own world, and every family keeps its share of the tasks', () => {
    const train = allTasks(env, 'train');
    expect(new Set(train.map((t) => dbHash(forkDb(env.worldOf(t))))).size).toBe(train.length);
    const families = FAMILIES.filter((f) => f.splits.includes('train')).map((f) => f.id);
    for (const id of families) expect(train.filter((t) => t.meta?.family === id).length, id).toBe(200 / families.length);
  });

  it.each(['fixed', 'varied'] as const)('no entity of a held-out or ood world or request occurs in any training task (all tasks of every split; %s layout)', (layout) => {
    const env = layout === 'fixed' ? sharedEnv() : new RetailEnv({ worldMode: 'procedural', worldSize: 8, layout });
    const bySplit = Object.fromEntries(SPLITS.map((s) => [s, new Set(allTasks(env, s).flatMap((t) => entitiesOf(env, t)))])) as Record<Split, Set<string>>;
    // Thousands of entities per split, so disjointness is not an accident of small sets.
    expect(bySplit.train.size).toBeGreaterThan(10_000);
    expect(bySplit.heldout.size).toBeGreaterThan(2_000);
    for (const other of ['heldout', 'ood'] as const) {
      expect([...bySplit[other]].filter((x) => bySplit.train.has(x)), other).toEqual([]);
      // Every entity is one of its own split's bucket: the construction that makes the sets disjoint.
      expect([...bySplit[other]].filter((x) => !x.includes('|') && !x.includes(' ') && entityBucket(x) !== other)).toEqual([]);
    }
    // Instructions name new entities too: no held-out instruction names a training order, item or user.
    // The varied layout's own text (notes, greetings) is checked too: it is part of every prompt.
    const trainText = allTasks(env, 'train').map((t) => `${t.instruction}\n${t.systemNote ?? ''}`).join('\n');
    for (const t of allTasks(env, 'heldout')) {
      expect(t.systemNote ?? '').not.toMatch(/\d/);
      const named = t.instruction.match(/#W\d{7}|\b\d{10}\b|\b[a-z]+_[a-z]+_\d{4}\b/g) ?? [];
      for (const id of named) expect(trainText.includes(id), `${t.id}: ${id}`).toBe(false);
    }
  });

  it('a memorised answer does not transfer: replaying a training task of the same family never earns a held-out task full marks', async () => {
    const train = allTasks(env, 'train');
    for (const task of allTasks(env, 'heldout')) {
      const donor = train.find((t) => t.meta?.family === task.meta?.family) as Task;
      let i = 0;
      const replay = (): Action => (i < donor.gold.calls.length ? { kind: 'calls', calls: [donor.gold.calls[i++]] } : { kind: 'answer', text: donor.gold.answer ?? '' });
      const r = await runEpisode(env, task, replay);
      expect(r.score, task.id).toBeLessThan(1);
    }
  });

  it('is reproducible: the same options give the same tasks and worlds; the task seed alone rebuilds its world', () => {
    const again = new RetailEnv({ worldMode: 'procedural', worldSize: 8 });
    for (const split of SPLITS) {
      const a = allTasks(env, split);
      const b = allTasks(again, split);
      expect(b.map((t) => [t.id, t.instruction, t.gold])).toEqual(a.map((t) => [t.id, t.instruction, t.gold]));
      for (const [k, t] of a.entries()) {
        expect(dbHash(forkDb(again.worldOf(b[k])))).toBe(dbHash(forkDb(env.worldOf(t))));
        expect(dbHash(forkDb(proceduralWorld(t.meta?.worldSeed as number, split, 8).db))).toBe(dbHash(forkDb(env.worldOf(t))));
      }
    }
    // Another run seed draws other worlds.
    const other = new RetailEnv({ worldMode: 'procedural', worldSize: 8, seed: 1, counts: { train: 5, heldout: 1, ood: 1 } });
    expect(allTasks(other, 'train').map((t) => t.instruction)).not.toEqual(allTasks(env, 'train').slice(0, 5).map((t) => t.instruction));
  });

  it('keeps a window of worlds in memory, and a world that left it comes back identical (the oracle still passes every task)', async () => {
    const many = new RetailEnv({ worldMode: 'procedural', worldSize: 5, taskMix: 'lookups', counts: { train: 600, heldout: 1, ood: 1 } });
    expect(allTasks(many, 'train')).toHaveLength(600);
    expect(many['worlds'].size).toBeLessThanOrEqual(256);
    // The first tasks' worlds were dropped while the later ones were drawn; each task's end state is
    // checked against the hash taken when it was built, so a world rebuilt differently would fail.
    const oracle = await runOracle(many, 'train');
    expect(oracle.success).toBe(1);
    expect(many['worlds'].size).toBeLessThanOrEqual(256);
  });

  it('reset gives each episode a private copy: a write in one episode is not seen by the next', async () => {
    const task = allTasks(env, 'train').find((t) => t.meta?.family === 'cancel-pending') as Task;
    const before = env.initialHash(task);
    const first = await runEpisode(env, task, env.expert(task));
    expect(first.success).toBe(true);
    expect(env.initialHash(task)).toBe(before);
    const ep = await env.reset(task, 0);
    const obs = await ep.step({ kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: (task.meta?.params as Rec).order_id } }] });
    expect(JSON.parse(obs.observation).status).toBe('pending');
  });

  it('taskMix narrows train and heldout to look-ups, or look-ups and chains; ood keeps its own families', () => {
    const kinds = (e: RetailEnv, split: Split) => new Set(allTasks(e, split).map((t) => String(t.meta?.kind)));
    const counts = { train: 20, heldout: 10, ood: 9 };
    const lookups = new RetailEnv({ worldMode: 'procedural', taskMix: 'lookups', counts });
    const chains = new RetailEnv({ worldMode: 'procedural', taskMix: 'chains', counts });
    for (const split of ['train', 'heldout'] as const) {
      expect([...kinds(lookups, split)]).toEqual(['lookup']);
      expect([...kinds(chains, split)].sort()).toEqual(['chain', 'lookup']);
    }
    expect(kinds(lookups, 'ood')).toEqual(kinds(env, 'ood'));
    // The same knob works on the fixed world.
    expect([...kinds(new RetailEnv({ taskMix: 'lookups', counts }), 'train')]).toEqual(['lookup']);
  });

  it('rejects a bad mode, mix or procedural size with a typed error', () => {
    expect(() => new RetailEnv({ worldMode: 'random' as never })).toThrow(WorldConfigError);
    expect(() => new RetailEnv({ taskMix: 'hard' as never })).toThrow(WorldConfigError);
    expect(() => new RetailEnv({ worldMode: 'procedural', worldSize: 0 })).toThrow(/\[1, 100\] users per task/);
    expect(() => new RetailEnv({ worldMode: 'procedural', worldSize: 101 })).toThrow(WorldConfigError);
  });
});

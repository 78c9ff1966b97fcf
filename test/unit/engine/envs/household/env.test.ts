import { describe, expect, it } from 'vitest';
import { HouseholdEnv } from '../../../../../electron/engine/envs/household/env';
import { isHeldoutPair } from '../../../../../electron/engine/envs/household/tasks';
import { WorldSizeError, generateWorld } from '../../../../../electron/engine/envs/household/world';
import { SPLITS, type Action, type Task } from '../../../../../electron/engine/envs/types';
import { runEpisode, scriptedPolicy, silentPolicy } from './drive';

const env = new HouseholdEnv({ tasksPerSplit: 25 });

function goalsOf(task: Task): Array<{ object: string; target: string; transform: string | null }> {
  return task.meta!.goals as never;
}

describe('household: scripted expert and null policy on every split', () => {
  for (const split of SPLITS) {
    it(`expert solves every ${split} task through the real episode`, async () => {
      for (const ref of env.tasks(split)) {
        const task = env.task(ref.id);
        const run = await runEpisode(env, task, env.expert(task));
        expect(run.check.passed, `${task.id}: ${JSON.stringify(run.check.checks)}`).toBe(true);
        expect(run.checklist.score, task.id).toBe(1);
        expect(run.envCalls).toBe(task.gold.calls.length);
      }
    });

    it(`a policy that answers nothing scores 0 on every ${split} task`, async () => {
      for (const ref of env.tasks(split)) {
        const task = env.task(ref.id);
        const run = await runEpisode(env, task, silentPolicy);
        expect(run.check.passed, task.id).toBe(false);
        expect(run.checklist.score, task.id).toBe(0);
      }
    });
  }
});

describe('household: one wrong argument fails the right item', () => {
  it('putting the object in the wrong receptacle fails only the put item and the end-state check', async () => {
    const task = env.tasks('train').map((r) => env.task(r.id)).find((t) => t.meta!.family === 'pick_place')!;
    const goal = goalsOf(task)[0];
    const calls = task.gold.calls.map((c) => (c.name === 'put' ? { name: 'put', arguments: { ...c.arguments, target: 'countertop 9' } } : c));
    const run = await runEpisode(env, task, scriptedPolicy(calls.map((c): Action => ({ kind: 'calls', calls: [c] }))));
    const failed = run.checklist.items.filter((i) => !i.passed).map((i) => i.description);
    expect(failed).toEqual([`put the ${goal.object} in/on the ${goal.target}`]);
    expect(run.checklist.score).toBeCloseTo(1 / 3);
    expect(run.check.passed).toBe(false);
    expect(run.check.checks[0].detail).toBe('the agent is holding it');
  });

  it('skipping the transformation fails the transform item and the state check, not the placement', async () => {
    const task = env.tasks('train').map((r) => env.task(r.id)).find((t) => t.meta!.family === 'heat_place')!;
    const calls = task.gold.calls.filter((c) => c.name !== 'heat');
    const run = await runEpisode(env, task, scriptedPolicy(calls.map((c): Action => ({ kind: 'calls', calls: [c] }))));
    const failed = run.checklist.items.filter((i) => !i.passed).map((i) => i.description);
    expect(failed).toEqual([`heated the ${goalsOf(task)[0].object}`]);
    expect(run.check.checks.find((c) => c.name.endsWith('is hot'))!.passed).toBe(false);
    expect(run.check.checks.find((c) => c.name.includes(' is at '))!.passed).toBe(true);
  });

  it('an examine task answered with the wrong receptacle fails the answer item', async () => {
    const task = env.tasks('heldout').map((r) => env.task(r.id)).find((t) => t.meta!.family === 'examine')!;
    const actions: Action[] = [{ kind: 'calls', calls: task.gold.calls }, { kind: 'answer', text: 'bed 9' }];
    const run = await runEpisode(env, task, scriptedPolicy(actions));
    expect(run.checklist.items.map((i) => i.passed)).toEqual([true, false]);
    expect(run.check.passed).toBe(false);
  });
});

describe('household: splits, determinism and world size', () => {
  it('heldout goals use object/receptacle pairs that train never uses; ood tasks are two-object', () => {
    const kind = (name: string) => name.replace(/ \d+$/, '');
    for (const ref of env.tasks('train')) {
      for (const g of goalsOf(env.task(ref.id))) expect(isHeldoutPair(kind(g.object), kind(g.target))).toBe(false);
    }
    for (const ref of env.tasks('heldout')) {
      for (const g of goalsOf(env.task(ref.id))) expect(isHeldoutPair(kind(g.object), kind(g.target))).toBe(true);
    }
    for (const ref of env.tasks('ood')) expect(goalsOf(env.task(ref.id))).toHaveLength(2);
  });

  it('the same options give the same tasks and the same observations', async () => {
    const other = new HouseholdEnv({ tasksPerSplit: 25 });
    const a = env.task('household-train-3');
    const b = other.task('household-train-3');
    expect(b).toEqual(a);
    const ra = await runEpisode(env, a, env.expert(a), 1);
    const rb = await runEpisode(other, b, other.expert(b), 2);
    expect(rb.observations).toEqual(ra.observations);
  });

  it('the world size knob sets the rooms and objects in play', async () => {
    const small = new HouseholdEnv({ rooms: 1, objects: 4, tasksPerSplit: 5 });
    const large = new HouseholdEnv({ rooms: 5, objects: 20, tasksPerSplit: 5 });
    const smallTask = small.task('household-train-0');
    const largeTask = large.task('household-train-0');
    const smallEp = await small.reset(smallTask, 0);
    const largeEp = await large.reset(largeTask, 0);
    expect(smallEp.initialObservation).toContain('1 room: kitchen');
    expect(largeEp.initialObservation).toContain('5 rooms: kitchen, living room, bedroom, bathroom, office');
    expect(generateWorld(smallTask.meta!.worldSeed as number, small.size).items).toHaveLength(4);
    expect(generateWorld(largeTask.meta!.worldSeed as number, large.size).items).toHaveLength(20);
  });

  it('rejects impossible world sizes with a typed error', () => {
    expect(() => new HouseholdEnv({ rooms: 0 })).toThrow(WorldSizeError);
    expect(() => new HouseholdEnv({ rooms: 6 })).toThrow(/rooms must be an integer in \[1, 5\]/);
    expect(() => new HouseholdEnv({ objects: 1000 })).toThrow(WorldSizeError);
    // A kitchen alone has no home for pillows or laptops, so it holds fewer kinds than a full house.
    expect(() => new HouseholdEnv({ rooms: 1, objects: 30 })).toThrow(/objects must be an integer in \[2, \d+\] for 1 room\(s\), got 30/);
    expect(() => new HouseholdEnv({ rooms: 5, objects: 30 })).not.toThrow();
  });

  it('unknown task ids and foreign tasks are rejected clearly', async () => {
    expect(() => env.task('household-train-999')).toThrow(/no task "household-train-999"/);
    const foreign = { ...env.task('household-train-0'), env: 'retail' };
    await expect(env.reset(foreign, 0)).rejects.toThrow(/not a household task/);
  });
});

describe('household: episode mechanics', () => {
  it('an invalid action is an error observation that does not end the episode or cost an env call', async () => {
    const task = env.task('household-train-0');
    const episode = await env.reset(task, 0);
    const r = await episode.step({ kind: 'invalid', error: 'Error: no <tool_call> or <answer> in the action', raw: 'hm' });
    expect(r).toEqual({ observation: 'Error: no <tool_call> or <answer> in the action', done: false });
    expect(episode.cost().envCalls).toBe(0);
    await episode.close();
  });

  it('the turn budget ends the episode and later steps are refused', async () => {
    const task = env.task('household-train-0');
    const episode = await env.reset(task, 0);
    const look: Action = { kind: 'calls', calls: [{ name: 'look', arguments: {} }] };
    let last = { observation: '', done: false };
    for (let i = 0; i < task.maxTurns; i++) last = await episode.step(look);
    expect(last.done).toBe(true);
    expect(last.observation).toContain(`turn budget (${task.maxTurns})`);
    expect((await episode.step(look)).observation).toMatch(/episode is over/);
    expect(episode.cost().envCalls).toBe(task.maxTurns);
  });
});

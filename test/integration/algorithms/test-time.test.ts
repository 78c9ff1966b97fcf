import { beforeAll, describe, expect, it } from 'vitest';
import { formatAction } from '../../../electron/engine/envs/parser';
import { getEnv } from '../../../electron/engine/envs/registry';
import type { Task, ToolCall, ToolEnv } from '../../../electron/engine/envs/types';
import { isErrorObservation } from '../../../electron/engine/envs/error-observation';
import type { Policy } from '../../../electron/engine/algorithms/policy';
import { evaluatePolicy } from '../../../electron/engine/algorithms/evaluate';
import type { RolloutSettings } from '../../../electron/engine/algorithms/rollout';
import { privateRehearsals, rehearseAndCommit } from '../../../electron/engine/algorithms/test-time';
import { countingEnv } from './counting-env';
import { scriptedPolicy } from './scripted-policy';

const settings: RolloutSettings = {
  maxTurns: 4,
  maxTokensPerTurn: 200,
  maxObservationTokens: 400,
  temperature: 1,
  topP: 1,
  pReal: 0,
  toolSchemas: 'none',
  rehearsePrompt: 'inline',
};
let env: ToolEnv;
let tasks: Task[];

const actsSoFar = (prompt: string) => prompt.split('<|act|>').length - 2;
const taskOf = (p: string) => tasks.find((t) => p.includes(t.instruction))!;
/** Acts like the expert: the task's gold calls, then its gold answer (the task is found by its instruction). */
const expertLike = (p: string) => {
  const task = taskOf(p);
  const n = actsSoFar(p);
  return n < task.gold.calls.length ? formatAction({ kind: 'calls', calls: [task.gold.calls[n]] }) : `<answer>${task.gold.answer}</answer>`;
};

/** Evaluations are greedy; the safe commit's own rehearsal is at this temperature. */
const greedy: RolloutSettings = { ...settings, temperature: 0 };
/** The gold call with its first string argument mistyped (an id the env does not know). */
const slip = (call: ToolCall): ToolCall => {
  const [key, value] = Object.entries(call.arguments).find((e) => typeof e[1] === 'string')!;
  return { name: call.name, arguments: { ...call.arguments, [key]: `${value as string}999` } };
};

/** A policy that, like a positional copier, falls apart when anything is added to its prompt. */
const brittle = () =>
  scriptedPolicy({
    act: (p) => (p.includes('<|memory|>') ? '<answer>no idea</answer>' : expertLike(p)),
    obs: () => '{"ok": true}',
  });

/** Greedy (temperature 0) it slips on the first call; sampled it makes the gold one. A world model that knows the slip fails. */
function slipsWhenGreedy(): Policy {
  let hot = false;
  const base = scriptedPolicy({
    act: (p) => (actsSoFar(p) === 0 && !hot ? formatAction({ kind: 'calls', calls: [slip(taskOf(p).gold.calls[0])] }) : expertLike(p)),
    obs: (p) => (p.slice(p.lastIndexOf('<|act|>')).includes('999') ? 'Error: not found' : '{"ok": true}'),
  });
  return {
    ...base,
    generate: (requests, opts) => {
      hot = opts.temperature > 0;
      return base.generate(requests, opts);
    },
  };
}

beforeAll(async () => {
  env = await getEnv('retail', { worldSize: 5, counts: { train: 6, heldout: 4, ood: 0 } });
  tasks = env.tasks('heldout').map((t) => env.task(t.id));
});

describe('private rehearsal', () => {
  it('parallel: N rehearsals, no env calls, a memory with one summary each', async () => {
    const counted = countingEnv(env);
    const { memory, rehearsals } = await privateRehearsals(
      scriptedPolicy({ act: expertLike, obs: () => '{"ok": true}' }),
      counted,
      tasks[0],
      settings,
      { rehearsals: 3, mode: 'parallel', commit: 'prompt', temperature: 1 },
      0,
      'x',
    );
    expect(counted.counts).toEqual({ resets: 0, steps: 0 });
    expect(rehearsals).toHaveLength(3);
    expect(memory.rehearsals).toHaveLength(3);
    expect(memory.consensus.answer).toBe(tasks[0].gold.answer);
    expect(memory.consensus.plan).toEqual(tasks[0].gold.calls);
  });

  it('sequential: rehearsal j sees the memory of the earlier ones', async () => {
    const seen: boolean[] = [];
    const policy = scriptedPolicy({
      act: (p) => {
        if (actsSoFar(p) === 0) seen.push(p.includes('<|memory|>'));
        return expertLike(p);
      },
      obs: () => '{}',
    });
    await privateRehearsals(policy, env, tasks[0], settings, { rehearsals: 3, mode: 'sequential', commit: 'prompt', temperature: 1 }, 0, 'x');
    expect(seen).toEqual([false, true, true]);
  });

  it('rehearse then commit in the real env with the memory in the prompt', async () => {
    const counted = countingEnv(env);
    const r = await rehearseAndCommit(
      scriptedPolicy({ act: expertLike, obs: () => '{}' }),
      counted,
      tasks[0],
      settings,
      { rehearsals: 2, mode: 'parallel', commit: 'prompt', temperature: 1 },
      0,
      'x',
    );
    expect(counted.counts.resets).toBe(1);
    expect(r.committed.segments.find((s) => s.role === 'memory')?.text).toBe(r.memoryText);
    expect(r.committed.success).toBe(true);
    expect(r.memoryText).toContain('Consensus plan:');
  });

  it('rejects a non-positive number of rehearsals', async () => {
    await expect(
      privateRehearsals(
        scriptedPolicy({ act: expertLike, obs: () => '' }),
        env,
        tasks[0],
        settings,
        { rehearsals: 0, mode: 'parallel', commit: 'prompt', temperature: 1 },
        0,
        'x',
      ),
    ).rejects.toThrow(/rehearsals/);
  });
});

describe('evaluatePolicy', () => {
  it('a task whose prompt the context cannot hold fails alone: the other tasks are still evaluated', async () => {
    const long: Task = { ...tasks[0], instruction: `${tasks[0].instruction} ${'and more '.repeat(3000)}` };
    const policy = scriptedPolicy({ act: expertLike, obs: () => '' });
    const ev = await evaluatePolicy(policy, env, [long, tasks[1]], settings, { seed: 0 });
    expect(ev.tasks).toBe(2);
    expect(ev.results.map((r) => [r.task.id, r.endReason, r.reward, r.success])).toEqual([
      [tasks[0].id, 'context', 0, false],
      [tasks[1].id, 'answer', 1, true],
    ]);
    expect(ev.results[0].turns).toEqual([]);
  });

  it('scores the expert-like policy at 100% in the real env, with env calls counted per task', async () => {
    const ev = await evaluatePolicy(scriptedPolicy({ act: expertLike, obs: () => '' }), env, tasks, settings, { seed: 0 });
    expect(ev.tasks).toBe(tasks.length);
    expect(ev.success).toBe(1);
    expect(ev.score).toBe(1);
    expect(ev.invalidActionRate).toBe(0);
    expect(ev.envCallsPerTask).toBeCloseTo(tasks.reduce((n, t) => n + t.gold.calls.length, 0) / tasks.length, 12);
  });

  it('counts invalid actions and adds rehearsal tokens with test-time rehearsal', async () => {
    const bad = scriptedPolicy({ act: () => 'not an action', obs: () => 'x' });
    const ev = await evaluatePolicy(bad, env, tasks.slice(0, 1), { ...settings, maxTurns: 2 }, { seed: 0 });
    expect(ev.invalidActionRate).toBe(1);
    expect(ev.success).toBe(0);
    const tt = await evaluatePolicy(scriptedPolicy({ act: expertLike, obs: () => '{}' }), env, tasks.slice(0, 1), settings, {
      seed: 0,
      testTime: { rehearsals: 2, mode: 'parallel', commit: 'plan', temperature: 1 },
    });
    const plain = await evaluatePolicy(scriptedPolicy({ act: expertLike, obs: () => '{}' }), env, tasks.slice(0, 1), settings, { seed: 0 });
    expect(tt.tokens).toBeGreaterThan(plain.tokens);
    expect(tt.success).toBe(1);
  });
});

// Commit mode `safe` (issue 21 item 4): rehearsal that cannot hurt a policy which breaks on any
// prompt change, and that still finds a call the world model predicts will fail.
describe('safe commit', () => {
  it('a policy that breaks on a memory block still commits its correct calls', async () => {
    const plain = await evaluatePolicy(brittle(), env, tasks, greedy, { seed: 0 });
    expect(plain.success).toBe(1);
    for (const mode of ['parallel', 'sequential'] as const) {
      // The memory in the prompt breaks it: what the safe commit must not do.
      const inPrompt = await evaluatePolicy(brittle(), env, tasks, greedy, { seed: 0, testTime: { rehearsals: 2, mode, commit: 'prompt', temperature: 1 } });
      expect(inPrompt.success).toBe(0);
      const safe = await evaluatePolicy(brittle(), env, tasks, greedy, { seed: 0, testTime: { rehearsals: 2, mode, commit: 'safe', temperature: 1 } });
      expect(safe.success).toBe(1);
      expect(safe.results.map((r) => r.turns.map((t) => t.action))).toEqual(plain.results.map((r) => r.turns.map((t) => t.action)));
      expect(safe.results.every((r) => !r.segments.some((s) => s.role === 'memory'))).toBe(true);
    }
  });

  it('replaces the greedy call the rehearsals predicted to fail by the one predicted to succeed', async () => {
    const task = tasks[0];
    const plain = await evaluatePolicy(slipsWhenGreedy(), env, [task], greedy, { seed: 0 });
    // Without rehearsal the slip reaches the real env and is refused.
    expect(isErrorObservation(plain.results[0].turns[0].observation!)).toBe(true);
    expect(plain.callErrorRate).toBeGreaterThan(0);

    const r = await rehearseAndCommit(slipsWhenGreedy(), env, task, greedy, { rehearsals: 2, mode: 'parallel', commit: 'safe', temperature: 1 }, 0, 'x');
    // Rehearsal 1 is the policy's own greedy run: it made the slip and imagined the error.
    expect(r.memory.rehearsals[0].plan[0]).toEqual(slip(task.gold.calls[0]));
    expect(isErrorObservation(r.memory.rehearsals[0].predictedObservations[0])).toBe(true);
    const first = r.committed.turns[0];
    expect(first.action).toEqual({ kind: 'calls', calls: [task.gold.calls[0]] });
    expect(isErrorObservation(first.observation!)).toBe(false);
    expect(r.committed.success).toBe(true);

    const safe = await evaluatePolicy(slipsWhenGreedy(), env, [task], greedy, { seed: 0, testTime: { rehearsals: 2, mode: 'parallel', commit: 'safe', temperature: 1 } });
    expect(safe.callErrorRate).toBe(0);
  });

  it('keeps the policy call when no rehearsal imagined another that succeeds', async () => {
    // One rehearsal, the greedy one: the slip is predicted to fail but there is nothing better to make.
    const r = await rehearseAndCommit(slipsWhenGreedy(), env, tasks[0], greedy, { rehearsals: 1, mode: 'parallel', commit: 'safe', temperature: 1 }, 0, 'x');
    expect(r.committed.turns[0].action).toEqual({ kind: 'calls', calls: [slip(tasks[0].gold.calls[0])] });
  });
});

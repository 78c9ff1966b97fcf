import { beforeAll, describe, expect, it } from 'vitest';
import { formatAction } from '../../../electron/engine/envs/parser';
import { getEnv } from '../../../electron/engine/envs/registry';
import type { Task, ToolEnv } from '../../../electron/engine/envs/types';
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
/** Acts like the expert: the task's gold calls, then its gold answer (the task is found by its instruction). */
const expertLike = (p: string) => {
  const task = tasks.find((t) => p.includes(t.instruction))!;
  const n = actsSoFar(p);
  return n < task.gold.calls.length ? formatAction({ kind: 'calls', calls: [task.gold.calls[n]] }) : `<answer>${task.gold.answer}</answer>`;
};

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

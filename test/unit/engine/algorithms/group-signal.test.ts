// RL mechanics around the group baseline (issue "Agents that learn"): how many task groups carry a
// signal (groups_with_signal), dynamic sampling that redraws groups without one, and the one
// baseline rule grpo-real and PaW share.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectiveConfig, StepStats, TrainBatch } from '../../../../native-models';
import { RunConfig, type RunConfigInput } from '../../../../electron/contract';
import { assignGroupAdvantages, hasRewardVariance, roleAdvantages } from '../../../../electron/engine/algorithms/advantages';
import { RunContext, type Stage } from '../../../../electron/engine/algorithms/context';
import type { Segment } from '../../../../electron/engine/algorithms/layout';
import { groupsWithSignal, rolloutMetrics } from '../../../../electron/engine/algorithms/loops/metrics';
import { runPawStage } from '../../../../electron/engine/algorithms/loops/paw';
import { runRoleGrpoStage, sampleGroupsWithSignal } from '../../../../electron/engine/algorithms/loops/role-grpo';
import type { NativePolicy } from '../../../../electron/engine/algorithms/policy';
import { epochSlice } from '../../../../electron/engine/random';
import type { RolloutResult } from '../../../../electron/engine/algorithms/rollout';
import { rolloutSettings } from '../../../../electron/engine/algorithms/train';
import { formatAction } from '../../../../electron/engine/envs/parser';
import { getEnv } from '../../../../electron/engine/envs/registry';
import type { Task, ToolEnv } from '../../../../electron/engine/envs/types';
import { scriptedPolicy } from '../../../integration/algorithms/scripted-policy';

/** A generated segment of `role` (only the fields the baseline rule reads matter). */
const gen = (role: 'act' | 'rehearse'): Segment => ({ role, text: '', ids: [0, 1, 2], lead: 1, tail: 0, logprobs: [-1, -1] });
const given = (role: 'env' | 'prompt'): Segment => ({ role, text: '', ids: [0, 1], lead: 1, tail: 0, logprobs: [] });
const rollout = (reward: number, segments: Segment[]) => ({ reward, segments, simulatorRows: [] as Segment[][] });
const options = { baseline: 'pooled-per-output', shared: false, stdNormalize: false } as const;

describe('groups_with_signal', () => {
  it('is the fraction of task groups with any non-zero advantage, on hand-made groups', () => {
    const groups = [
      [rollout(1, [given('prompt'), gen('act')]), rollout(0, [given('prompt'), gen('act')])], // signal
      [rollout(0.5, [given('prompt'), gen('act')]), rollout(0.5, [given('prompt'), gen('act'), given('env'), gen('act')])], // all equal
      [rollout(0, [gen('act')]), rollout(0, [gen('act')]), rollout(0, [gen('act')])], // all failed
      [rollout(1, [gen('act'), gen('rehearse')]), rollout(0.25, [gen('act')])], // signal in act only (one rehearse output)
    ].map((g) => assignGroupAdvantages(g, ['act', 'rehearse'], options));
    expect(groups.map((g) => g.advantages.some((a) => a !== 0))).toEqual([true, false, false, true]);
    expect(groupsWithSignal(groups)).toBe(0.5);
    expect(groupsWithSignal([{ advantages: [0, 0] }, { advantages: [0] }])).toBe(0);
    expect(groupsWithSignal([{ advantages: [0, -0.1] }])).toBe(1);
  });

  it('is logged by rolloutMetrics whenever the groups carry their advantages', () => {
    const result = (reward: number) => ({ reward, envCalls: 1, tokensGenerated: 2, turns: [], checklist: { formatError: false }, segments: [], success: null }) as unknown as RolloutResult;
    const groups = [
      { rewards: [1, 0], outputs: [{ rollout: 0, role: 'act' as const }, { rollout: 1, role: 'act' as const }], advantages: [0.5, -0.5] },
      { rewards: [0, 0], outputs: [{ rollout: 0, role: 'act' as const }, { rollout: 1, role: 'act' as const }], advantages: [0, 0] },
      { rewards: [1, 1], outputs: [{ rollout: 0, role: 'act' as const }, { rollout: 1, role: 'act' as const }], advantages: [0, 0] },
    ];
    const m = rolloutMetrics([1, 0, 0, 0, 1, 1].map(result), groups, 10, [result(0), result(0)]);
    expect(m.groups_with_signal).toBeCloseTo(1 / 3, 12);
    // Discarded (redrawn) rollouts cost env calls and tokens but are not in the reward.
    expect(m.env_calls).toBe(8);
    expect(m.tokens_generated).toBe(16);
    expect(m.reward).toBeCloseTo(0.5, 12);
    expect(rolloutMetrics([result(1)], [], 10).groups_with_signal).toBeUndefined();
  });
});

describe('assignGroupAdvantages', () => {
  it('sets the role-wise advantage on each generated segment of a trained role (worked example) and skips given text', () => {
    const r1 = rollout(1, [given('prompt'), gen('act'), gen('rehearse'), gen('act'), gen('rehearse'), gen('act')]);
    const r2 = rollout(0, [given('prompt'), gen('act'), gen('rehearse'), gen('act')]);
    const g = assignGroupAdvantages([r1, r2], ['act', 'rehearse'], options);
    expect(g.rewards).toEqual([1, 0]);
    expect(r1.segments.map((s) => s.advantage)).toEqual([undefined, ...[0.4, 1 / 3, 0.4, 1 / 3, 0.4].map((x) => expect.closeTo(x, 12))]);
    expect(r2.segments.map((s) => s.advantage)).toEqual([undefined, ...[-0.6, -2 / 3, -0.6].map((x) => expect.closeTo(x, 12))]);
    // Act only (grpo-real, PaW): rehearse segments are left untrained.
    const r3 = rollout(1, [gen('act'), gen('rehearse')]);
    assignGroupAdvantages([r3, rollout(0, [gen('act')])], ['act'], options);
    expect(r3.segments.map((s) => s.advantage)).toEqual([0.5, undefined]);
  });

  it('hasRewardVariance is false exactly when every advantage would be zero', () => {
    expect(hasRewardVariance([0, 0, 0])).toBe(false);
    expect(hasRewardVariance([0.3, 0.3])).toBe(false);
    expect(hasRewardVariance([1, 0])).toBe(true);
    expect(hasRewardVariance([0.5])).toBe(false);
  });
});

// Loops over a scripted policy in the real retail world: exact, and no model in the way.
let env: ToolEnv;
let tasks: Task[];
const dirs: string[] = [];
beforeAll(async () => {
  env = await getEnv('retail', { worldSize: 5, counts: { train: 6, heldout: 1, ood: 0 } });
  tasks = env.tasks('train').map((t) => env.task(t.id));
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const base: RunConfigInput = {
  env: 'retail',
  worldSize: 5,
  model: { preset: 'nano' },
  seed: 5,
  rollout: { k: 2, tasksPerStep: 3, maxTurns: 3, toolSchemas: 'none' },
  checkpointEvery: 1000,
};
const actsSoFar = (prompt: string) => prompt.split('<|act|>').length - 2; // the prompt ends with a fresh <|act|>
const taskOf = (prompt: string) => tasks.find((t) => prompt.includes(t.instruction))!;
const goldCall = (t: Task) => formatAction({ kind: 'calls', calls: [t.gold.calls[0]] });
const goldAnswer = (t: Task) => `<answer>${t.gold.answer}</answer>`;
const WRONG = '<answer>no idea</answer>';

/** A scripted policy whose trainStep records what it was given. */
function recordingPolicy(act: (prompt: string) => string) {
  const p = scriptedPolicy({ act, obs: () => '{}' });
  const trained: Array<{ batches: TrainBatch[]; objective: ObjectiveConfig }> = [];
  const stats: StepStats = { step: 1, lr: 0, loss: 0, terms: {}, gradNorm: 0, tokens: 0, microBatches: 1, entropyMean: 0, clipFrac: 0, ratioMean: 1 };
  Object.assign(p, {
    async trainStep(batches: TrainBatch[], objective: ObjectiveConfig) {
      trained.push({ batches, objective });
      return stats;
    },
  });
  return Object.assign(p, { trained });
}

function context(overrides: Partial<RunConfigInput>, policy: ReturnType<typeof recordingPolicy>, steps: { onStep?: (m: Record<string, number>) => void } = {}): RunContext {
  const config = RunConfig.parse({ ...base, ...overrides, rollout: { ...base.rollout, ...overrides.rollout } });
  const runDir = mkdtempSync(join(tmpdir(), 'envace-groups-'));
  dirs.push(runDir);
  const io = { runDir, signal: new AbortController().signal, onStep: (s: { metrics: Record<string, number> }) => steps.onStep?.(s.metrics), onLog: () => {}, onProgress: () => {} };
  const stage: Stage = { algo: config.algo as Stage['algo'], first: 1, last: 1 };
  return new RunContext(config, env, tasks, [], policy as unknown as NativePolicy, rolloutSettings(config), io, [stage]);
}

describe('dynamic sampling', () => {
  /** The step's own tasks always fail (no signal); any other task is answered right on every other rollout. */
  const script = (stepTasks: Set<string>) => {
    let n = 0;
    return (prompt: string) => {
      const t = taskOf(prompt);
      return stepTasks.has(t.id) || n++ % 2 ? WRONG : goldAnswer(t);
    };
  };
  const stepTasks = () => new Set(epochSlice(tasks, 5, 0, 3).map((t) => t.id));

  it('is off by default: flat groups stay as they are', async () => {
    const ctx = context({ algo: 'grpo-real' }, recordingPolicy(script(stepTasks())));
    const s = await sampleGroupsWithSignal(ctx, 1, 'real');
    expect(s.redraws).toBe(0);
    expect(s.groups.every((g) => !hasRewardVariance(g.map((r) => r.reward)))).toBe(true);
  });

  it('redraws each group without signal with a fresh task, and logs the redraws', async () => {
    const own = stepTasks();
    const policy = recordingPolicy(script(own));
    const ctx = context({ algo: 'grpo-real', rollout: { dynamicSampling: true, maxRedraws: 3 } }, policy);
    const s = await sampleGroupsWithSignal(ctx, 1, 'real');
    expect(s.redraws).toBe(3); // all three groups, once each
    expect(s.discarded).toHaveLength(6);
    expect(s.groups).toHaveLength(3);
    expect(s.groups.every((g) => g.length === 2 && hasRewardVariance(g.map((r) => r.reward)))).toBe(true);
    expect(s.groups.some((g) => own.has(g[0].task.id))).toBe(false);
    // The loop logs it, with groups_with_signal after the redraws.
    const logged: Record<string, number>[] = [];
    await runRoleGrpoStage(context({ algo: 'grpo-real', rollout: { dynamicSampling: true, maxRedraws: 3 } }, recordingPolicy(script(own)), { onStep: (m) => logged.push(m) }), { algo: 'grpo-real', first: 1, last: 1 }, 1, 'grpo-real');
    expect(logged[0]).toMatchObject({ redraws: 3, groups_with_signal: 1 });
  });

  it('stops at maxRedraws when no draw brings a signal', async () => {
    for (const maxRedraws of [1, 2]) {
      const policy = recordingPolicy(() => WRONG);
      const ctx = context({ algo: 'grpo-real', rollout: { dynamicSampling: true, maxRedraws } }, policy);
      const s = await sampleGroupsWithSignal(ctx, 1, 'real');
      expect(s.redraws).toBe(3 * maxRedraws);
      expect(s.discarded).toHaveLength(2 * 3 * maxRedraws);
      // One act each: the step's rollouts plus maxRedraws rounds of 3 groups × K = 2.
      expect(policy.calls.act).toBe(6 * (1 + maxRedraws));
    }
  });
});

describe('one baseline rule for grpo-real and PaW', () => {
  /** Within each group, rollouts alternate: call + right answer (two acts), or a wrong answer (one act). */
  const alternating = () => {
    let n = 0;
    return (prompt: string) => (actsSoFar(prompt) > 0 ? goldAnswer(taskOf(prompt)) : n++ % 2 ? WRONG : goldCall(taskOf(prompt)));
  };

  it('PaW’s policy term is grpo-real’s exactly (rows, mask, advantages, objective): with its world-model weight at 0 they are one method', async () => {
    const stage = (algo: Stage['algo']): Stage => ({ algo, first: 1, last: 1 });
    const metrics: Record<string, number>[] = [];
    const grpo = recordingPolicy(alternating());
    await runRoleGrpoStage(context({ algo: 'grpo-real' }, grpo, { onStep: (m) => metrics.push(m) }), stage('grpo-real'), 1, 'grpo-real');
    const paw = recordingPolicy(alternating());
    await runPawStage(context({ algo: 'paw', paw: { alpha: 1 } }, paw, { onStep: (m) => metrics.push(m) }), stage('paw'), 1);
    const pg = (p: ReturnType<typeof recordingPolicy>) => p.trained[0].batches.map((b) => ({ tokens: b.tokens, pgMask: b.pgMask, advantages: b.advantages }));
    expect(pg(paw)).toEqual(pg(grpo));
    // What is left to tell them apart is the world-model term alone.
    const { worldModel, ...pawPolicyTerm } = paw.trained[0].objective;
    expect(worldModel).toBeDefined();
    expect(pawPolicyTerm).toEqual(grpo.trained[0].objective);
    expect(metrics.map((m) => m.groups_with_signal)).toEqual([1, 1]);
    // The rewards are such that the rule matters: a per-rollout baseline would give other advantages.
    const adv = grpo.trained[0].batches.flatMap((b) => b.advantages!.flatMap((row, i) => row.filter((_, t) => b.pgMask![i][t])));
    const perRollout = roleAdvantages([1, 0], [{ rollout: 0, role: 'act' }, { rollout: 0, role: 'act' }, { rollout: 1, role: 'act' }], { ...options, baseline: 'per-rollout' });
    expect(adv.some((a) => a !== 0)).toBe(true);
    expect(adv.some((a) => Math.abs(a - perRollout[0]) < 1e-9)).toBe(false);
  });
});

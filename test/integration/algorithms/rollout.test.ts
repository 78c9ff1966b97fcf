import { beforeAll, describe, expect, it } from 'vitest';
import { formatAction } from '../../../electron/engine/envs/parser';
import { getEnv } from '../../../electron/engine/envs/registry';
import type { Task, ToolEnv } from '../../../electron/engine/envs/types';
import { flatten } from '../../../electron/engine/algorithms/layout';
import { type RolloutSettings, runRollouts, toNewRollout } from '../../../electron/engine/algorithms/rollout';
import { commitWithMemory } from '../../../electron/engine/algorithms/test-time';
import { buildMemory } from '../../../electron/engine/algorithms/memory';
import { countingEnv } from './counting-env';
import { LOGPROB, scriptedPolicy } from './scripted-policy';

const settings: RolloutSettings = {
  maxTurns: 6,
  maxTokensPerTurn: 200,
  maxObservationTokens: 400,
  temperature: 1,
  topP: 1,
  pReal: 0,
  toolSchemas: 'none',
  rehearsePrompt: 'inline',
};
let env: ToolEnv;
let task: Task;

const actsSoFar = (prompt: string) => prompt.split('<|act|>').length - 2; // the prompt ends with a fresh <|act|>
const goldCall = () => formatAction({ kind: 'calls', calls: task.gold.calls });
const goldAnswer = () => `<answer>${task.gold.answer}</answer>`;

beforeAll(async () => {
  env = await getEnv('retail', { worldSize: 5, counts: { train: 6, heldout: 2, ood: 0 } });
  task = env
    .tasks('train')
    .map((t) => env.task(t.id))
    .find((t) => t.id.endsWith('order-status'))!;
});

describe('rollout modes at the env boundary', () => {
  it('a rehearse-mode rollout makes zero env calls and is scored by the checklist', async () => {
    const counted = countingEnv(env);
    const policy = scriptedPolicy({ act: (p) => (actsSoFar(p) === 0 ? goldCall() : goldAnswer()), obs: () => '{"status": "imagined"}' });
    const [r] = await runRollouts(policy, counted, [{ task, mode: 'rehearse' }], settings, 0, 't');
    expect(counted.counts).toEqual({ resets: 0, steps: 0 });
    expect(r.envCalls).toBe(0);
    expect(r.reward).toBe(1);
    expect(r.success).toBeNull();
    expect(r.segments.map((s) => s.role)).toEqual(['prompt', 'prompt', 'act', 'rehearse', 'act']);
    expect(r.turns[0].observation).toBe('{"status": "imagined"}');
    expect(policy.calls).toEqual({ act: 2, obs: 1 });
  });

  it('a household rehearsal starts from the same scene a real episode opens with', async () => {
    const house = await getEnv('household', {});
    const [ref] = house.tasks('train');
    const chore = house.task(ref!.id);
    const policy = scriptedPolicy({ act: () => '<answer>done</answer>', obs: () => 'ok' });
    const roomy = { ...settings, maxObservationTokens: 2000 }; // the whole scene, uncut
    const [rehearsed] = await runRollouts(policy, countingEnv(house), [{ task: chore, mode: 'rehearse' }], roomy, 0, 'h');
    const [real] = await runRollouts(policy, house, [{ task: chore, mode: 'real' }], roomy, 0, 'h');
    const scene = (await house.reset(chore, 0)).initialObservation!;
    expect(scene).toMatch(/^You are in a house with/);
    const opening = (r: typeof real) => r!.segments.filter((s) => s.role === 'env').map((s) => s.text)[0];
    expect(opening(rehearsed)).toBe(scene);
    expect(opening(real)).toBe(scene);
  });

  it('a real rollout steps the env, records the real observation and the end-state check', async () => {
    const counted = countingEnv(env);
    const policy = scriptedPolicy({ act: (p) => (actsSoFar(p) === 0 ? goldCall() : goldAnswer()), obs: () => 'never used' });
    const [r] = await runRollouts(policy, counted, [{ task, mode: 'real' }], settings, 0, 't');
    expect(counted.counts).toEqual({ resets: 1, steps: 2 });
    expect(r.envCalls).toBe(1);
    expect(r.segments.map((s) => s.role)).toEqual(['prompt', 'prompt', 'act', 'env', 'act']);
    expect(r.segments[3].text).toContain(String(task.gold.calls[0].arguments.order_id));
    expect(r.success).toBe(true);
    expect(r.envCheck?.passed).toBe(true);
    expect(policy.calls.obs).toBe(0);
  });

  it('malformed action: real → the env answers with an error; rehearse → the episode ends with reward 0', async () => {
    const bad = () => '<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>';
    const real = await runRollouts(
      scriptedPolicy({ act: (p) => (actsSoFar(p) === 0 ? bad() : goldAnswer()), obs: () => '' }),
      env,
      [{ task, mode: 'real' }],
      settings,
      0,
      't',
    );
    expect(real[0].turns[0].observation).toMatch(/^Error: Tool 'no_such_tool' not found/);
    expect(real[0].reward).toBe(0);
    expect(real[0].checklist.formatError).toBe(true);
    const reh = await runRollouts(scriptedPolicy({ act: bad, obs: () => 'x' }), env, [{ task, mode: 'rehearse' }], settings, 0, 't');
    expect(reh[0].endReason).toBe('format-error');
    expect(reh[0].turns).toHaveLength(1);
    expect(reh[0].reward).toBe(0);
  });

  it('simulator prompt: each observation comes from its own prompt with reference examples; no env calls', async () => {
    const counted = countingEnv(env);
    const prompts: string[] = [];
    const policy = scriptedPolicy({
      act: (p) => (actsSoFar(p) === 0 ? goldCall() : goldAnswer()),
      obs: (p) => {
        prompts.push(p);
        return '{"status": "pending"}';
      },
    });
    const reference = [{ action: '<tool_call>{"name": "x", "arguments": {}}</tool_call>', observation: 'EXAMPLE-RESULT' }];
    const [r] = await runRollouts(policy, counted, [{ task, mode: 'rehearse', reference }], { ...settings, rehearsePrompt: 'simulator' }, 0, 't');
    expect(counted.counts).toEqual({ resets: 0, steps: 0 });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('EXAMPLE-RESULT');
    expect(prompts[0]).toContain(`Call to answer:\nCALL: ${goldCall()}`);
    expect(prompts[0]).not.toContain(task.instruction); // the simulator sees calls, not the user's request
    expect(r.simulatorRows).toHaveLength(1);
    const answer = r.simulatorRows[0][r.simulatorRows[0].length - 1];
    expect(answer.ids[0]).toBe(policy.specials.rehearse);
    expect(answer.logprobs.length).toBeGreaterThan(0);
    const inActor = r.segments.find((s) => s.role === 'rehearse')!;
    expect(inActor.text).toBe('{"status": "pending"}');
    expect(inActor.logprobs).toEqual([]);
    expect(r.reward).toBe(1);
  });

  it('limits: max turns, and observation tokens are capped', async () => {
    const loop = scriptedPolicy({ act: goldCall, obs: () => 'a '.repeat(500) });
    const [r] = await runRollouts(loop, env, [{ task, mode: 'rehearse' }], { ...settings, maxTurns: 3, maxObservationTokens: 10 }, 0, 't');
    expect(r.endReason).toBe('max-turns');
    expect(r.turns).toHaveLength(3);
    const obs = r.segments.filter((s) => s.role === 'rehearse');
    // Each rehearsed observation: <|obs|> + at most 10 generated ids + a forced <|end|>.
    for (const s of obs) expect(s.ids.length).toBeLessThanOrEqual(12);
    const [real] = await runRollouts(loop, env, [{ task, mode: 'real' }], { ...settings, maxTurns: 2, maxObservationTokens: 10 }, 0, 't');
    for (const s of real.segments.filter((x) => x.role === 'env')) expect(s.ids.length).toBe(12);
  });

  it('mixed mode with pReal = 1 is all real, K rollouts per task run in one batch', async () => {
    const counted = countingEnv(env);
    const policy = scriptedPolicy({ act: (p) => (actsSoFar(p) === 0 ? goldCall() : goldAnswer()), obs: () => 'x' });
    const rs = await runRollouts(
      policy,
      counted,
      [0, 1, 2].map(() => ({ task, mode: 'mixed' as const })),
      { ...settings, pReal: 1 },
      0,
      't',
    );
    expect(rs.every((r) => r.envCalls === 1)).toBe(true);
    expect(counted.counts.resets).toBe(3);
  });

  it('a stored rollout keeps ids, log-probs and advantages aligned per turn', async () => {
    const policy = scriptedPolicy({ act: (p) => (actsSoFar(p) === 0 ? goldCall() : goldAnswer()), obs: () => 'seen' });
    const [r] = await runRollouts(policy, env, [{ task, mode: 'rehearse' }], settings, 0, 't');
    r.segments[2].advantage = 0.5;
    const row = toNewRollout(r, { runId: null, step: 3 });
    expect(row.turns.map((t) => t.tokenIds!.length).reduce((a, b) => a + b, 0)).toBe(flatten(r.segments).length);
    const act = row.turns[2];
    expect(act.logprobs![0]).toBe(0); // the <|act|> marker was given, not generated
    expect(act.logprobs![1]).toBe(LOGPROB);
    expect(act.advantages![1]).toBe(0.5);
    expect(row.turns[3].advantages).toBeNull();
    expect(row.tokens).toBe(r.tokensGenerated);
  });
});

describe('commit mode plan', () => {
  it('follows the consensus plan while real observations agree, then hands over to the policy', async () => {
    const counted = countingEnv(env);
    const real = await runRollouts(
      scriptedPolicy({ act: (p) => (actsSoFar(p) === 0 ? goldCall() : goldAnswer()), obs: () => '' }),
      env,
      [{ task, mode: 'real' }],
      settings,
      0,
      'r',
    );
    const trueObs = real[0].turns[0].observation!;
    const plan = task.gold.calls;
    const memory = buildMemory([
      {
        instruction: task.instruction,
        turns: [
          { action: { kind: 'calls', calls: plan }, observation: trueObs },
          { action: { kind: 'answer', text: 'pending' }, observation: null },
        ],
        logprobs: [-1],
      },
    ]);
    const policy = scriptedPolicy({ act: () => goldAnswer(), obs: () => '' });
    const r = await commitWithMemory(policy, counted, task, settings, memory, { commit: 'plan' }, 0, 'c');
    // The plan's call was taken without asking the policy; the policy only wrote the answer.
    expect(policy.calls.act).toBe(1);
    expect(r.segments.filter((s) => s.role === 'act')[0].logprobs).toEqual([]);
    expect(r.segments.some((s) => s.role === 'memory')).toBe(true);
    expect(r.success).toBe(true);
  });

  it('falls back to the policy at the first divergence', async () => {
    const second = { name: 'get_user_details', arguments: { user_id: 'nobody' } };
    const memory = buildMemory([
      {
        instruction: task.instruction,
        turns: [{ action: { kind: 'calls', calls: [task.gold.calls[0], second] }, observation: '{"status": "wrong"}' }],
        logprobs: [-1],
      },
    ]);
    const policy = scriptedPolicy({ act: () => goldAnswer(), obs: () => '' });
    const r = await commitWithMemory(
      policy,
      env,
      task,
      settings,
      memory,
      { commit: 'plan', agreement: { similarity: 'json-f1', threshold: 0.99 } },
      0,
      'c',
    );
    const acts = r.segments.filter((s) => s.role === 'act');
    // Step 1 followed the plan; its observation disagreed, so step 2 came from the policy, not the plan.
    expect(acts).toHaveLength(2);
    expect(acts[1].text).toBe(goldAnswer());
    expect(r.turns.some((t) => t.action.kind === 'calls' && t.action.calls[0].name === 'get_user_details')).toBe(false);
  });
});

// A user's MCP server that dies at start-up for some episodes, inside training: each such episode
// fails on its own (a dropped demonstration, a rollout scored 0, a held-out failure), counted in the
// step's metrics and named in the run's log, and the run goes on to its last step. The fixture server
// dies at the start-up the test arms (FIXTURE_DIE_NEXT) at the start of each phase.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../electron/contract';
import { type StepResult, runTraining } from '../../../electron/engine/algorithms/train';
import { evaluateOp } from '../../../electron/engine/compute/policy-ops';
import { mcpRegistration } from '../../../electron/engine/envs/mcp/env';
import { getEnv, registerEnv, unregisterEnv } from '../../../electron/engine/envs/registry';
import { contextFit } from '../../../electron/engine/runs/preflight-training';
import { patience } from '../../helpers/patience';

const FIXTURE = fileURLToPath(new URL('../../unit/engine/envs/mcp/fixture-server.mjs', import.meta.url));
const ENV = 'startfail-training';
// Three training tasks (a, b, c) and two held-out ones (d, e), each one echo call and its answer.
const TASKS = ['a', 'b', 'c', 'd', 'e'].map((id, i) => ({
  id,
  split: i < 3 ? 'train' : 'heldout',
  instruction: `Echo ${id}.`,
  maxTurns: 2,
  checklist: [
    { kind: 'call', weight: 1, name: 'echo', arguments: { text: id } },
    { kind: 'answer', weight: 1, expected: [id] },
  ],
  gold: { calls: [{ name: 'echo', arguments: { text: id } }], answer: id },
}));

let dir: string;
let dieNext: string;
/** The next start-up but `after` of the fixture server dies (one only). */
const arm = (after: number) => writeFileSync(dieNext, String(after));

const config = (over: Partial<RunConfigInput> = {}) =>
  RunConfig.parse({
    env: ENV,
    model: { preset: 'nano' },
    seed: 5,
    provider: 'cpu',
    algo: 'grpo-real',
    steps: 1,
    sft: { steps: 1 },
    evalEvery: 1,
    rollout: { k: 2, tasksPerStep: 1, maxTurns: 2, maxTokensPerTurn: 16, maxObservationTokens: 16, toolSchemas: 'none' },
    ...over,
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'envace-startfail-train-'));
  dieNext = join(dir, 'die-next');
  const taskFile = join(dir, 'tasks.jsonl');
  writeFileSync(taskFile, TASKS.map((t) => JSON.stringify(t)).join('\n'));
  const server = { transport: 'stdio' as const, command: process.execPath, args: [FIXTURE], env: { FIXTURE_DIE_NEXT: dieNext } };
  await registerEnv(mcpRegistration({ id: ENV, server, reset: { kind: 'restart', seedFiles: [] }, taskFile, episodeRoot: join(dir, 'episodes'), limits: { timeoutMs: patience(5_000) } }));
  // Built (and its registration's probe started) before anything is armed.
  await getEnv(ENV);
}, patience(60_000));

afterAll(async () => {
  await unregisterEnv(ENV);
  rmSync(dir, { recursive: true, force: true });
});

describe('an MCP server that dies at start-up during training', () => {
  it('pre-flight counts and names the demonstration it could not record', async () => {
    arm(1); // the second of the three demonstrations (task b)
    const fit = await contextFit(config(), await getEnv(ENV), undefined, { sft: true, rollouts: true }, patience(60_000));
    const recorded = fit.checks.find((c) => c.name === 'demonstrations recorded');
    expect(recorded).toMatchObject({ ok: true, warning: true });
    expect(recorded!.detail).toMatch(/^1 of 3 demonstrations failed in the environment while they were recorded and will be dropped \(SFT logs each\): b: could not start MCP server /);
    // The fit is judged on the two that were recorded.
    expect(fit.checks.find((c) => c.name === 'demonstrations fit')?.detail).toMatch(/^2 of 2 recorded demonstrations fit/);
    expect(existsSync(dieNext)).toBe(false);
  }, patience(120_000));

  it('fails only the episodes whose server died: counted in env_failures, named in the log, and the run reaches its last step', async () => {
    const steps: StepResult[] = [];
    const logs: string[] = [];
    const out = await runTraining(config(), {
      runDir: join(dir, 'run'),
      signal: new AbortController().signal,
      onStep: (s) => steps.push(s),
      // Each phase arms one death at its second start-up: demonstrations, the untrained evaluation, the RL stage.
      onProgress: (_f, phase) => {
        if (phase.startsWith('setup: recording') || phase.startsWith('evaluating the untrained policy')) arm(1);
      },
      onLog: (_l, m) => {
        logs.push(m);
        if (m.startsWith('stage grpo-real:')) arm(1);
      },
    });
    expect(out.finalStep).toBe(2);
    expect(steps.map((s) => s.step)).toEqual([0, 1, 2]);

    // Demonstrations: task b's is dropped with the reason; SFT trains on the other two.
    expect(logs).toContainEqual(expect.stringMatching(/^sft: dropped 1 of 3 demonstrations:\n {2}b: the environment failed while it was recorded: could not start MCP server /));
    expect(logs).toContainEqual(expect.stringMatching(/^sft: 2 expert demonstrations/));

    // The untrained evaluation: held-out task e's server died (counted), d's episode ran.
    const [before, sft, rl] = steps;
    expect(before.metrics['eval/env_failures']).toBe(1);
    expect(logs).toContainEqual(expect.stringMatching(/^held-out evaluation at step 0: 1 of 2 episodes failed in the environment, not by the policy .*\n {2}task e: could not start MCP server /s));
    // Nothing armed for the evaluation after SFT.
    expect(sft.metrics['eval/env_failures']).toBe(0);

    // The RL step: the second of its two rollouts had no server; it scores 0 and is not a success.
    expect(rl.metrics.env_failures).toBe(1);
    expect(rl.metrics['eval/env_failures']).toBe(0);
    expect(rl.rollouts).toHaveLength(2);
    const failed = rl.rollouts[1];
    expect([failed.reward, failed.success, failed.envCalls]).toEqual([0, false, 0]);
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`^step 2: 1 of 2 episodes failed in the environment, not by the policy .*\\n {2}task ${failed.taskId}: could not start MCP server `, 's')));
    expect(logs.filter((m) => /failed in the environment/.test(m))).toHaveLength(2);
    expect(existsSync(dieNext)).toBe(false);
  }, patience(300_000));

  it("an evaluation of the run (evals.run's worker side) names the task whose server died and goes on", async () => {
    arm(0); // the first held-out task (d)
    const out = await evaluateOp({ config: config(), checkpointDir: join(dir, 'run', 'checkpoints', 'step-2'), split: 'heldout', rehearsals: 0, mode: 'parallel', commit: 'prompt', seed: 0 });
    expect(out.tasks).toBe(2);
    const [d, e] = out.perTask;
    expect([d.taskId, d.success, d.score, d.envCalls]).toEqual(['d', false, 0, 0]);
    expect(d.envFailure).toMatch(/^could not start MCP server .*fixture: dying at start-up as armed/s);
    expect(e.taskId).toBe('e');
    expect(e.envFailure).toBeUndefined();
  }, patience(120_000));
});

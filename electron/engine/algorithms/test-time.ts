/**
 * Test-time private rehearsal (algorithms.md): N rehearsals with no env calls, a memory built from
 * them, then one committed run in the real environment.
 *   parallel    N independent rehearsals at temperature T_r (one batched rollout call)
 *   sequential  rehearsal j sees the memory of rehearsals < j and may revise
 *   commit `prompt`  the memory goes in a `<|memory|>` block before the first act
 *   commit `plan`    the consensus plan is followed while real observations agree with the
 *                    predicted ones; the policy (with the memory) takes over at the first divergence
 *   commit `safe`    the memory never enters the prompt; it only replaces a call every rehearsal
 *                    that made it predicted to fail (safe-commit.ts), and rehearsal 1 is the
 *                    policy's own at the commit's temperature, so its plain calls are always in it
 */
import { renderMemory } from './memory-text';
import type { CommitMode } from '../../contract';
import type { Task, ToolEnv } from '../envs/types';
import { AlgorithmError } from './errors';
import { type Memory, type RehearsalTrace, buildMemory } from './memory';
import type { Policy } from './policy';
import { type PlanToFollow, type RolloutResult, type RolloutSettings, runRollouts } from './rollout';
import { type TextSimilarityName, textSimilarity } from './rwml';
import { safeReviser } from './safe-commit';

export interface TestTimeOptions {
  rehearsals: number;
  mode: 'parallel' | 'sequential';
  commit: CommitMode;
  /** Sampling temperature of the rehearsals. */
  temperature: number;
  /** `plan` commit: a real observation agrees with the predicted one when similarity ≥ threshold. */
  agreement?: { similarity: TextSimilarityName; threshold: number };
}

export interface TestTimeResult {
  memory: Memory;
  memoryText: string;
  rehearsals: RolloutResult[];
  committed: RolloutResult;
}

export function traceOf(r: RolloutResult): RehearsalTrace {
  return {
    instruction: r.task.instruction,
    turns: r.turns.map((t) => ({ action: t.action, observation: t.observation })),
    logprobs: r.segments.flatMap((s) => s.logprobs),
  };
}

/** N private rehearsals of `task` and the memory built from them. Makes no env calls. */
export async function privateRehearsals(
  policy: Policy,
  env: ToolEnv,
  task: Task,
  settings: RolloutSettings,
  o: TestTimeOptions,
  seed: number,
  label: string,
): Promise<{ memory: Memory; rehearsals: RolloutResult[] }> {
  if (!Number.isInteger(o.rehearsals) || o.rehearsals < 1) throw new AlgorithmError(`rehearsals must be a positive integer, got ${o.rehearsals}`);
  const s = { ...settings, temperature: o.temperature };
  // A safe commit's first rehearsal is the policy's own (the commit's temperature, greedy in an
  // eval): the calls the plain policy will make are then always among those the memory judges.
  const own = o.commit === 'safe';
  let rehearsals: RolloutResult[];
  if (o.mode === 'parallel') {
    const sampled = own ? o.rehearsals - 1 : o.rehearsals;
    rehearsals = [
      ...(own ? await runRollouts(policy, env, [{ task, mode: 'rehearse' }], settings, seed, `${label}:rehearse:own`) : []),
      ...(sampled > 0
        ? await runRollouts(policy, env, Array.from({ length: sampled }, () => ({ task, mode: 'rehearse' as const })), s, seed, `${label}:rehearse`)
        : []),
    ];
  } else {
    rehearsals = [];
    for (let j = 0; j < o.rehearsals; j++) {
      const memory = j === 0 ? undefined : renderMemory(buildMemory(rehearsals.map(traceOf)));
      const at = own && j === 0 ? settings : s;
      rehearsals.push(...(await runRollouts(policy, env, [{ task, mode: 'rehearse', memory }], at, seed, `${label}:rehearse:${j}`)));
    }
  }
  return { memory: buildMemory(rehearsals.map(traceOf)), rehearsals };
}

/**
 * The committed real run with a given (possibly user-edited) memory. `memoryText` is what goes in the
 * memory block; it defaults to the structured memory rendered, and a hand edit of the text wins.
 */
export async function commitWithMemory(
  policy: Policy,
  env: ToolEnv,
  task: Task,
  settings: RolloutSettings,
  memory: Memory,
  o: Pick<TestTimeOptions, 'commit' | 'agreement'> & { memoryText?: string },
  seed: number,
  label: string,
): Promise<RolloutResult> {
  if (o.commit === 'safe') {
    const [committed] = await runRollouts(policy, env, [{ task, mode: 'real', revise: safeReviser(memory) }], settings, seed, `${label}:commit`);
    return committed;
  }
  const memoryText = o.memoryText ?? renderMemory(memory);
  let plan: PlanToFollow | undefined;
  if (o.commit === 'plan' && memory.consensus.plan.length) {
    const agreement = o.agreement ?? { similarity: 'json-f1', threshold: 0.8 };
    // Expected observations come from a rehearsal whose plan is the consensus one.
    const key = JSON.stringify(memory.consensus.plan);
    const source = memory.rehearsals.find((r) => JSON.stringify(r.plan) === key);
    plan = {
      calls: memory.consensus.plan,
      expected: source?.predictedObservations ?? [],
      agrees: (real, predicted) => textSimilarity(agreement.similarity, predicted, real) >= agreement.threshold,
    };
  }
  const [committed] = await runRollouts(policy, env, [{ task, mode: 'real', memory: memoryText, plan }], settings, seed, `${label}:commit`);
  return committed;
}

/** Rehearse privately, build the memory, commit in the real env. */
export async function rehearseAndCommit(
  policy: Policy,
  env: ToolEnv,
  task: Task,
  settings: RolloutSettings,
  o: TestTimeOptions,
  seed: number,
  label: string,
): Promise<TestTimeResult> {
  const { memory, rehearsals } = await privateRehearsals(policy, env, task, settings, o, seed, label);
  const committed = await commitWithMemory(policy, env, task, settings, memory, o, seed, label);
  return { memory, memoryText: renderMemory(memory), rehearsals, committed };
}

/** A memory's tokens against the room the prompt leaves it, and the commit mode chosen to fit. */
export interface CommitChoice {
  total: number;
  room: number;
  /** The prompt will hold only the memory's last `room` tokens. */
  cut: boolean;
  commit: 'prompt' | 'plan';
  reason: string;
}

/**
 * The default commit mode for a memory (safe by default): `prompt` when the memory fits; when it
 * does not, `plan`, which follows the consensus plan whatever part of the memory the prompt holds.
 * A memory without a consensus plan stays `prompt`: its end, which a cut keeps, is the consensus.
 */
export function chooseCommit(fit: { total: number; room: number }, planCalls: number): CommitChoice {
  const { total, room } = fit;
  const head = `memory ${total} tokens, room ${room}`;
  if (total <= room) return { total, room, cut: false, commit: 'prompt', reason: `${head}: the memory fits; memory in the prompt chosen` };
  const cut = room === 0 ? 'no room for the memory: it will be left out' : `the memory will be cut to its last ${room} tokens`;
  if (planCalls > 0)
    return { total, room, cut: true, commit: 'plan', reason: `${head}: ${cut}; plan commit chosen, its ${planCalls}-call consensus plan is followed whatever the prompt holds` };
  return { total, room, cut: true, commit: 'prompt', reason: `${head}: ${cut}; the consensus plan has no calls, so memory in the prompt stays (a cut keeps the end, where the consensus is)` };
}

/**
 * Memory-aware SFT (issue 21): a share of each SFT batch starts from a real rehearsal memory of its
 * task, as test time's `prompt` commit gives it — the policy at this step rehearses the task
 * privately (no env calls, its own world model), buildMemory summarises the rehearsals, and the
 * demonstration is laid out again with that memory block before its first act. The loss is the
 * demonstration's own (the memory is given text, never a target), so the policy learns to act right
 * with a memory of any length and quality in front of it — rehearsals early in SFT are poor, later
 * ones close to the truth — instead of meeting the block for the first time at test time.
 *
 * Per step and from the step's policy: a resumed run rehearses exactly what the uninterrupted one did.
 */
import type { RunConfig } from '../../contract';
import type { Task, ToolEnv } from '../envs/types';
import { Rng, deriveSeed } from '../random';
import { type DemoTranscript, type Demonstration, fitDemonstration } from './demos';
import { buildMemory } from './memory';
import { renderMemory } from './memory-text';
import type { Policy } from './policy';
import { type RolloutSettings, runRollouts } from './rollout';
import { traceOf } from './test-time';

/** Private rehearsals behind one SFT memory: 1 or 2, drawn per row, so the memory's length varies as test time's does. */
export const SFT_MEMORY_REHEARSALS = [1, 2] as const;

export interface SftMemoryInputs {
  policy: Policy;
  env: ToolEnv;
  settings: RolloutSettings;
  sft: Pick<RunConfig['sft'], 'memoryFraction' | 'memoryFrom'>;
  seed: number;
  /** The transcripts and tasks behind the demonstrations, by task id. */
  transcripts: ReadonlyMap<string, DemoTranscript>;
  tasks: ReadonlyMap<string, Task>;
}

/** Which rows of the step's batch carry a memory, and from how many rehearsals: a function of (seed, step). */
export function memoryRows(sft: SftMemoryInputs['sft'], seed: number, step: number, rows: number): Array<number | null> {
  if (sft.memoryFraction <= 0 || step < sft.memoryFrom) return Array.from({ length: rows }, () => null);
  const rng = new Rng(deriveSeed(seed, 'sft-memory', step));
  return Array.from({ length: rows }, () => {
    const aware = rng.next() < sft.memoryFraction;
    const n = rng.pick(SFT_MEMORY_REHEARSALS);
    return aware ? n : null;
  });
}

/**
 * The step's batch with its memory rows laid out again behind a rehearsal memory; `memories` says
 * how many rows got one. A row whose demonstration no longer fits with the memory keeps its plain form.
 */
export async function withRehearsalMemories(
  m: SftMemoryInputs,
  step: number,
  batch: readonly Demonstration[],
): Promise<{ batch: Demonstration[]; memories: number; memoryTokens: number }> {
  const plan = memoryRows(m.sft, m.seed, step, batch.length);
  const requests = batch.flatMap((d, i) => {
    const task = m.tasks.get(d.taskId);
    return task && plan[i] !== null ? Array.from({ length: plan[i]! }, () => ({ i, task })) : [];
  });
  if (!requests.length) return { batch: [...batch], memories: 0, memoryTokens: 0 };
  const rehearsals = await runRollouts(
    m.policy,
    m.env,
    requests.map(({ task }) => ({ task, mode: 'rehearse' as const })),
    m.settings,
    m.seed,
    `sft:${step}:memory`,
  );
  let memories = 0;
  let memoryTokens = 0;
  const out = batch.map((d, i) => {
    const traces = rehearsals.filter((_, j) => requests[j].i === i).map(traceOf);
    const t = m.transcripts.get(d.taskId);
    if (!traces.length || !t) return d;
    const text = renderMemory(buildMemory(traces));
    const reserve = m.settings.maxTokensPerTurn + m.settings.maxObservationTokens;
    const fit = fitDemonstration(m.policy.tokenizer, m.policy.specials, t, m.settings.maxObservationTokens, m.policy.maxSeqLen, {
      text,
      reserve,
      memoryTokens: m.settings.memoryTokens ?? 0,
    });
    if (!('demo' in fit)) return d;
    memories++;
    const block = fit.demo.segments.find((s) => s.role === 'memory');
    memoryTokens += block ? block.ids.length - block.lead - block.tail : 0;
    return fit.demo;
  });
  return { batch: out, memories, memoryTokens };
}

import { pausePoint } from '../../../native-models/io/pause-point';
import { ContractError } from '../../contract';
import { computeJob, policySource } from '../runs/compute-jobs';
import { renderMemory } from '../algorithms/memory-text';
import type { HandlerGroup } from './types';

export const memoriesHandlers: HandlerGroup<'memories.list' | 'memories.get' | 'memories.update' | 'memories.rehearse' | 'memories.fit' | 'memories.commit'> = (s) => {
  /** A stored memory and the run checkpoint to commit it with, checked to be for the same env. */
  const commitSource = (input: { memoryId: number; runId: string; step?: number }) => {
    const memory = s.store.memories.get(input.memoryId);
    if (!memory) throw new ContractError('not_found', `no memory with id ${input.memoryId}`);
    const { run, step, source } = policySource(s, input.runId, input.step);
    if (run.env !== memory.env) throw new ContractError('invalid_input', `memory ${memory.id} is for ${memory.env}, run ${run.id} trains on ${run.env}`);
    return { memory, run, step, source };
  };
  return {
  /** N private rehearsals of a task (no env calls), stored, and the memory built from them. */
  'memories.rehearse': async (input) => {
    const { run, step, source } = policySource(s, input.runId, input.step);
    const label = `rehearse ${input.taskId} ×${input.rehearsals} (${input.mode})`;
    const out = await computeJob(s, { kind: 'rehearse', label, runId: run.id }, () =>
      s.compute.call('rehearse', { ...source, taskId: input.taskId, rehearsals: input.rehearsals, mode: input.mode, temperature: input.temperature, seed: run.config.seed }),
    ).catch((error: Error) => {
      throw /no task/.test(error.message) ? new ContractError('not_found', `environment ${run.env} has no task ${input.taskId}`) : error;
    });
    return s.store.db.transaction(() => {
      const memory = s.store.memories.insert({ env: run.env, taskId: input.taskId, runId: run.id, structured: out.memory, text: out.text });
      const rehearsalIds = out.rollouts.map((r) => s.store.rollouts.insert({ ...r, runId: run.id, step, memoryId: memory.id }));
      return { memory, rehearsalIds };
    })();
  },
  /** The memory's tokens against the room left, and the commit mode chosen to fit (no env call, no job: a tokenizer count). */
  'memories.fit': async (input) => {
    const { memory, source } = commitSource(input);
    return s.compute.call('fit', { ...source, taskId: memory.taskId, memory: memory.structured, memoryText: memory.text });
  },
  /** One committed real run with this memory (the edited version, if this is an edit). */
  'memories.commit': async (input) => {
    const { memory, run, step, source } = commitSource(input);
    const out = await computeJob(s, { kind: 'evaluate', label: `commit ${memory.taskId} with memory v${memory.version} (${input.commit})`, runId: run.id }, () =>
      s.compute.call('commit', { ...source, taskId: memory.taskId, memory: memory.structured, memoryText: memory.text, commit: input.commit, seed: run.config.seed }),
    );
    // One transaction: the rollout row and its turns are separate inserts, and a crash between
    // them would leave a committed run with missing turns.
    const rolloutId = s.store.db.transaction(() => {
      const id = s.store.rollouts.insert({ ...out.rollout, runId: run.id, step, memoryId: memory.id });
      pausePoint('memory-commit');
      return id;
    })();
    return { rolloutId, memoryId: memory.id, reward: out.reward, success: out.success, envCalls: out.envCalls, commit: out.commit, fellBackAtTurn: out.fellBackAtTurn, memoryTokens: out.memoryTokens };
  },
  'memories.list': (input) => ({ items: s.store.memories.list(input) }),
  'memories.get': ({ id }) => {
    const memory = s.store.memories.get(id);
    if (!memory) throw new ContractError('not_found', `no memory with id ${id}`);
    return memory;
  },
  'memories.update': ({ id, structured, text }) => {
    const parent = s.store.memories.get(id);
    if (!parent) throw new ContractError('not_found', `no memory with id ${id}`);
    if (structured === undefined && text === undefined) {
      throw new ContractError('invalid_input', 'memories.update needs "structured" or "text" (or both)');
    }
    const nextStructured = structured ?? parent.structured;
    // Structured edits re-render the text unless the editor sent its own text too.
    const nextText = text ?? (structured ? renderMemory(nextStructured) : parent.text);
    return s.store.memories.edit(parent, nextStructured, nextText);
  },
};
};

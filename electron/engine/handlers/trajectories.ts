import path from 'node:path';
import { ContractError, RunConfig, type Rollout } from '../../contract';
import type { TextTokenizer } from '../../../native-models/tokenizer/text-tokenizer';
import { realityCheck, summariseFidelity } from '../algorithms/fidelity';
import { envOptions } from '../algorithms/env-options';
import { getEnv } from '../envs/registry';
import type { HandlerGroup } from './types';

export const trajectoriesHandlers: HandlerGroup<'trajectories.list' | 'trajectories.get' | 'trajectories.realityCheck'> = (s) => {
  const requireRollout = (id: number) => {
    const rollout = s.store.rollouts.get(id);
    if (!rollout) throw new ContractError('not_found', `no rollout with id ${id}`);
    return rollout;
  };
  /**
   * Each token's text beside its id, so the token heat view shows words: decoded one id at a time
   * with the run's tokenizer, which every checkpoint of the run holds (the same one throughout).
   * Best effort: a rollout without a run or a checkpoint, or an unreadable tokenizer, keeps ids only.
   */
  const tokenizers = new Map<string, TextTokenizer>();
  const withTokenTexts = async (rollout: Rollout): Promise<Rollout> => {
    const run = rollout.runId ? s.store.runs.get(rollout.runId) : null;
    const last = run?.checkpoints.at(-1);
    const checkpoint = run && last ? s.store.runs.checkpointPath(run.id, last.step) : null;
    if (!checkpoint || !rollout.turns.some((t) => t.tokenIds)) return rollout;
    try {
      // Loaded on demand: the host's import graph stays free of the model stack.
      const [{ loadTokenizer }, { TOKENIZER_DIR }] = await Promise.all([import('../../../native-models/tokenizer/text-tokenizer'), import('../algorithms/context')]);
      const dir = path.join(checkpoint, TOKENIZER_DIR);
      const tokenizer = tokenizers.get(dir) ?? loadTokenizer(dir);
      if (tokenizers.size > 8) tokenizers.clear();
      tokenizers.set(dir, tokenizer);
      return { ...rollout, turns: rollout.turns.map((t) => (t.tokenIds ? { ...t, tokenTexts: t.tokenIds.map((id) => tokenizer.decode([id])) } : t)) };
    } catch {
      return rollout;
    }
  };
  return {
    'trajectories.list': (input) => s.store.rollouts.list(input),
    'trajectories.get': ({ id }) => withTokenTexts(requireRollout(id)),
    /**
     * Replay a rollout's actions in the real environment (same world as its run) and store the
     * real observation beside each imagined one, with its fidelity figures.
     */
    'trajectories.realityCheck': async ({ id }) => {
      const rollout = requireRollout(id);
      if (!rollout.turns.some((t) => t.role === 'rehearse')) {
        throw new ContractError('conflict', `rollout ${id} has no rehearsed observations to check (mode ${rollout.mode})`);
      }
      const run = rollout.runId ? s.store.runs.get(rollout.runId) : null;
      const options = run ? envOptions(RunConfig.parse(run.config)) : {};
      const env = await getEnv(rollout.env, options).catch((error: Error) => {
        throw new ContractError('not_found', `environment ${rollout.env} is not available: ${error.message}`);
      });
      let task;
      try {
        task = env.task(rollout.taskId);
      } catch {
        throw new ContractError('not_found', `environment ${rollout.env} has no task ${rollout.taskId}`);
      }
      const checks = await realityCheck(env, task, rollout.turns);
      s.store.db.transaction(() => checks.forEach((c) => s.store.rollouts.setRealCounterpart(id, c.index, c.realText, c.fidelity)))();
      return { rollout: requireRollout(id), summary: summariseFidelity(checks) };
    },
  };
};

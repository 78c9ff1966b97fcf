import { ContractError, RunConfig } from '../../contract';
import { realityCheck } from '../algorithms/fidelity';
import { envOptions } from '../algorithms/env-options';
import { getEnv } from '../envs/registry';
import type { HandlerGroup } from './types';

export const trajectoriesHandlers: HandlerGroup<'trajectories.list' | 'trajectories.get' | 'trajectories.realityCheck'> = (s) => {
  const requireRollout = (id: number) => {
    const rollout = s.store.rollouts.get(id);
    if (!rollout) throw new ContractError('not_found', `no rollout with id ${id}`);
    return rollout;
  };
  return {
    'trajectories.list': (input) => s.store.rollouts.list(input),
    'trajectories.get': ({ id }) => requireRollout(id),
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
      const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
      const jsonScores = checks.map((c) => c.fidelity.jsonF1).filter((x): x is number => x !== null);
      return {
        rollout: requireRollout(id),
        summary: {
          compared: checks.length,
          exactRate: mean(checks.map((c) => (c.fidelity.exact ? 1 : 0))),
          meanSimilarity: mean(checks.map((c) => c.fidelity.similarity)),
          meanJsonF1: jsonScores.length ? mean(jsonScores) : null,
          envCalls: checks.length,
        },
      };
    },
  };
};

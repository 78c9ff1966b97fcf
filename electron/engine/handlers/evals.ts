import { ContractError, RunConfig, type EvalResult, type Memory, type ModelEvalResult } from '../../contract';
import type { EvaluateOutput } from '../compute/policy-ops';
import { recommendedRecipe } from '../runs/recipes';
import { ROBUSTNESS_SIZES } from '../algorithms/robustness';
import type { EngineServices } from '../system/services';
import { computeJob, policySource } from '../runs/compute-jobs';
import { models } from './models';
import type { HandlerGroup } from './types';

export const evalsHandlers: HandlerGroup<'evals.run' | 'evals.list' | 'evals.model'> = (s) => ({
  'evals.list': ({ runId }) => ({ items: s.store.evaluations.list(runId) }),
  /** An imported model as imported, no run: the recipe's rollout settings, greedy, in the real environment. */
  'evals.model': async (input) => {
    // The env is checked where it opens (the compute worker), as evals.run's is.
    if (!(await models()).listModels(s.paths.models).some((m) => m.name === input.model))
      throw new ContractError('not_found', `no imported model "${input.model}" (envace models list; envace import --hf DIR | --gguf FILE)`);
    const recipe = recommendedRecipe(input.env, { imported: input.model });
    const config = RunConfig.parse(recipe.config);
    const label = `evaluate model ${input.model} on ${input.env} ${input.split}`;
    const out = await computeJob(s, { kind: 'evaluate', label }, () =>
      s.compute.call('evaluate', { config, modelsDir: s.paths.models, split: input.split, limit: input.limit, rehearsals: 0, mode: 'parallel', commit: 'prompt', seed: input.seed }),
    );
    const result: ModelEvalResult = {
      model: input.model,
      env: out.env,
      split: input.split,
      recipe: recipe.id,
      ...figures(out),
      perTask: out.perTask.map(({ taskId, success, score, envCalls, envFailure }) => ({ taskId, success, score, envCalls, ...(envFailure !== undefined ? { envFailure } : {}) })),
    };
    return result;
  },
  /** Held-out evaluation in the real environment, with or without test-time rehearsal. */
  'evals.run': async (input) => {
    const { run, step, source } = policySource(s, input.runId, input.step);
    const memories = input.memories === 'stored' ? newestMemories(s, run.id) : [];
    const robustness = input.robustness === true ? [...ROBUSTNESS_SIZES] : input.robustness || undefined;
    // Its cells are plain evaluations, paired with the unperturbed one; a memory per task would confound them.
    if (robustness && (input.rehearsals > 0 || memories.length > 0))
      throw new ContractError(
        'invalid_input',
        'the robustness evaluation runs without test-time rehearsals or stored memories (it has its own memory cell)',
      );
    const label = `evaluate ${run.name} @ step ${step} on ${input.split}${robustness ? ' with robustness perturbations' : ''}${input.rehearsals ? ` with ${input.rehearsals} ${input.mode} rehearsals` : ''}${memories.length ? ` and ${memories.length} stored memories` : ''}`;
    const out = await computeJob(s, { kind: 'evaluate', label, runId: run.id }, () =>
      s.compute.call('evaluate', {
        ...source,
        split: input.split,
        limit: input.limit,
        rehearsals: input.rehearsals,
        mode: input.mode,
        commit: input.commit,
        seed: input.seed,
        memories: memories.map((m) => ({ id: m.id, taskId: m.taskId, memory: m.structured, text: m.text })),
        robustness,
      }),
    );
    const ids = s.store.db.transaction(() => out.rollouts.map((r) => s.store.rollouts.insert({ ...r, runId: run.id, step })))();
    const result: EvalResult = {
      runId: run.id,
      step,
      env: out.env,
      split: input.split,
      rehearsals: input.rehearsals,
      mode: input.mode,
      commit: input.commit,
      memories: input.memories,
      ...figures(out),
      fidelity: out.fidelity,
      perTask: out.perTask.map((t, i) => ({ ...t, rolloutId: ids[i] ?? null })),
      ...(out.robustness ? { robustness: out.robustness } : {}),
    };
    if (
      input.split === 'heldout' &&
      input.rehearsals === 0 &&
      memories.length === 0 &&
      (run.bestHeldoutSuccess === null || out.success > run.bestHeldoutSuccess)
    ) {
      s.store.runs.update(run.id, { bestHeldoutSuccess: out.success });
    }
    return s.store.evaluations.insert(result);
  },
});

/** The figures every evaluation reports, from the compute worker's answer. */
const figures = (out: EvaluateOutput) => ({
  tasks: out.tasks,
  success: out.success,
  meanScore: out.meanScore,
  invalidActionRate: out.invalidActionRate,
  envCallsPerTask: out.envCallsPerTask,
  callErrorRate: out.callErrorRate,
  tokensPerTask: out.tokensPerTask,
  wallMs: out.wallMs,
});

/** The newest version of each task's stored memory of a run (the Memory view's rehearsals and edits). */
function newestMemories(s: EngineServices, runId: string): Memory[] {
  const newest = new Map<string, Memory>();
  // Newest first (created_at DESC): the first seen per task wins.
  for (const m of s.store.memories.list({ runId, limit: 10_000 })) if (!newest.has(m.taskId)) newest.set(m.taskId, m);
  return [...newest.values()];
}

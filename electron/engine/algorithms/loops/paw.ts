/**
 * PaW: policy + world-model co-training on real rollouts. GRPO on the act tokens, plus λ_WM,g·CMAE
 * (or cross-entropy) on the observation tokens of the transitions whose action was most uncertain —
 * the top α fraction of H(a_t) over the whole update — in the same forward pass.
 */
import { performance } from 'node:perf_hooks';
import { worldModelWeights, type ObservationSpan } from '../../../../native-models';
import { advantageOptions, assignGroupAdvantages } from '../advantages';
import { pgRow } from '../batch';
import type { RunContext, Stage } from '../context';
import { selectTopFraction, transitions, worldModelLambda } from '../paw';
import { redrawMetric, sampleGroupsWithSignal } from './role-grpo';
import { rolloutMetrics } from './metrics';
import { toNewRollout } from '../rollout';

/** Checklist rewards lie in [0, 1]. */
const R_MAX = 1;

export async function runPawStage(ctx: RunContext, stage: Stage, startStep: number): Promise<boolean> {
  await ctx.beginRlStage(stage, startStep);
  const c = ctx.config;
  for (let step = startStep; step <= stage.last; step++) {
    const t0 = performance.now();
    // 1. real rollouts (groups without signal redrawn when dynamic sampling is on)
    const { groups, redraws, discarded } = await sampleGroupsWithSignal(ctx, step, 'real');
    const rolloutMs = performance.now() - t0;
    // 2–3. advantages on act outputs by grpo-real's rule; candidate transitions (act → real observation) with H(a_t)
    const results = groups.flat();
    const candidates: Array<ObservationSpan & { entropy: number }> = [];
    const logged = groups.map((group, g) => {
      const assigned = assignGroupAdvantages(group, ['act'], advantageOptions(c));
      const lambda = worldModelLambda(assigned.rewards, R_MAX);
      group.forEach((r, i) => {
        for (const t of transitions(r.segments)) candidates.push({ ...t, row: g * c.rollout.k + i, lambda });
      });
      return assigned;
    });
    const selected = selectTopFraction(
      candidates.map((t) => t.entropy),
      c.paw.alpha,
    ).map((i) => candidates[i]);
    // 4. one update: clipped surrogate on act tokens + weighted world-model loss on selected observations
    const rows = results.map((r) => pgRow(r.segments));
    const wm = worldModelWeights(
      rows.map((r) => r.tokens),
      selected,
    );
    rows.forEach((r, i) => (r.wmWeight = wm[i]));
    const stats = await ctx.rlUpdate(rows, step, ctx.pgObjective({ worldModel: { kind: c.paw.worldLoss } }));
    // 5. log, checkpoint, stop
    const metrics = {
      ...ctx.trainMetrics(stats, performance.now() - t0),
      ...rolloutMetrics(results, logged, rolloutMs, discarded),
      ...redrawMetric(c, redraws),
      'paw/transitions': candidates.length,
      'paw/selected': selected.length,
      'paw/lambda_mean': selected.length ? selected.reduce((s, t) => s + t.lambda, 0) / selected.length : 0,
    };
    const rollouts = results.map((r) => toNewRollout(r, { runId: ctx.io.runId ?? null, step }));
    if (!(await ctx.finishStep(step, stage, metrics, rollouts))) return false;
  }
  return true;
}

/**
 * RWML world-model RL: from real rollouts take transitions ⟨history, action, next observation⟩; the
 * policy predicts the observation (Rehearse role) G times per transition; reward = similarity to the
 * real one (binary at τ, or rounded to 0.2); GRPO with std-normalised advantages. Too-easy
 * transitions (mean reward of their G samples ≥ τ_easy) are kept with probability p_keep — the G
 * samples double as the probe, so no extra generation is spent on it.
 */
import { performance } from 'node:perf_hooks';
import { groupAdvantages } from '../advantages';
import { microBatches, pgRow } from '../batch';
import type { RunContext, Stage } from '../context';
import { type Segment, flatten, generatedSegment } from '../layout';
import { Rng, deriveSeed, epochSlice } from '../random';
import { toNewRollout } from '../rollout';
import { dropEasy, similarityFunction, similarityReward } from '../rwml';
import { rolloutMetrics } from './metrics';
import { sampleGroups } from './role-grpo';

interface Transition {
  prefix: Segment[];
  real: string;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, v) => s + v, 0) / xs.length : 0);

export async function runRwmlStage(ctx: RunContext, stage: Stage, startStep: number): Promise<boolean> {
  await ctx.beginRlStage(stage, startStep);
  const c = ctx.config;
  const G = c.rwml.samplesPerTransition;
  const similarity = similarityFunction(c.rwml.similarity);
  for (let step = startStep; step <= stage.last; step++) {
    const t0 = performance.now();
    // 1. real rollouts → transitions (history up to an action, and the real observation that followed)
    const groups = await sampleGroups(ctx, step, 'real');
    const results = groups.flat();
    const all: Transition[] = results.flatMap((r) =>
      r.segments.flatMap((s, j) =>
        s.role === 'act' && r.segments[j + 1]?.role === 'env' ? [{ prefix: r.segments.slice(0, j + 1), real: r.segments[j + 1].text }] : [],
      ),
    );
    const transitions = epochSlice(all, deriveSeed(c.seed, 'rwml', step), 0, Math.min(all.length, c.rollout.tasksPerStep * c.rollout.k));
    // 2. G predictions of each observation, all in one batched generate call
    const room = (t: Transition) => ctx.policy.maxSeqLen - flatten(t.prefix).length - 2;
    const usable = transitions.filter((t) => room(t) >= 1);
    const gens = usable.length
      ? await ctx.policy.generate(
          usable.flatMap((t) =>
            Array.from({ length: G }, () => ({
              prompt: [...flatten(t.prefix), ctx.policy.specials.obs],
              maxNewTokens: Math.min(c.rollout.maxObservationTokens, room(t)),
            })),
          ),
          { temperature: c.rollout.temperature, topP: c.rollout.topP, seed: deriveSeed(c.seed, 'rwml-generate', step) },
        )
      : [];
    // 3. rewards from similarity to the real observation; drop too-easy transitions; GRPO advantages
    const rows: Segment[][] = [];
    const rewards: number[] = [];
    const sims: number[] = [];
    const perTransition: number[][] = [];
    for (const [i, t] of usable.entries()) {
      const preds = gens
        .slice(i * G, (i + 1) * G)
        .map((g) => generatedSegment(ctx.policy.tokenizer, ctx.policy.specials, 'rehearse', g.tokens, g.logprobs));
      const s = await Promise.all(preds.map((p) => similarity(p.text, t.real)));
      const r = s.map((x) => similarityReward(Math.min(1, Math.max(0, x)), c.rwml.reward, c.rwml.threshold));
      sims.push(...s);
      perTransition.push(r);
      const adv = groupAdvantages(r, true);
      preds.forEach((p, g) => {
        p.advantage = adv[g];
        rows.push([...t.prefix, p]);
      });
      rewards.push(...r);
    }
    const kept = dropEasy(perTransition.map(mean), c.rwml.easyThreshold, c.rwml.keepEasyProbability, new Rng(deriveSeed(c.seed, 'rwml-drop', step)));
    const trainRows = kept.flatMap((i) => rows.slice(i * G, (i + 1) * G)).map((segs) => pgRow(segs));
    // 4. update (skipped when every transition was dropped or none fit the context)
    const metrics: Record<string, number> = {
      ...rolloutMetrics(results, [], performance.now() - t0),
      'rwml/transitions': usable.length,
      'rwml/kept': kept.length,
      'rwml/reward': mean(rewards),
      'rwml/similarity': mean(sims),
    };
    if (trainRows.length) {
      const stats = await ctx.policy.trainStep(microBatches(await ctx.withReference(trainRows), c.optim.microBatchTokens), ctx.pgObjective());
      Object.assign(metrics, ctx.trainMetrics([stats], performance.now() - t0));
    }
    // 5. log, checkpoint, stop
    const rollouts = results.map((r) => toNewRollout(r, { runId: ctx.io.runId ?? null, step }));
    if (!(await ctx.finishStep(step, stage, metrics, rollouts))) return false;
  }
  return true;
}

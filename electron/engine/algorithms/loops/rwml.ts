/**
 * RWML world-model RL: from real rollouts take transitions ⟨history, action, next observation⟩; the
 * policy predicts the observation (Rehearse role) G times per transition; reward = similarity to the
 * real one (binary at τ, or rounded to 0.2); GRPO with std-normalised advantages. Too-easy
 * transitions (mean reward of their G samples ≥ τ_easy) are kept with probability p_keep — the G
 * samples double as the probe, so no extra generation is spent on it — and dropped before the
 * advantages, their places refilled from other transitions so a step keeps its size.
 */
import { performance } from 'node:perf_hooks';
import { groupAdvantages } from '../advantages';
import { microBatches, pgRow } from '../batch';
import type { RunContext, Stage } from '../context';
import { type Segment, flatten, generatedSegment, openIds } from '../layout';
import { Rng, deriveSeed } from '../../random';
import { type RolloutResult, toNewRollout } from '../rollout';
import { fillBatch, similarityFunction, similarityReward } from '../rwml';
import { rolloutMetrics } from './metrics';
import { sampleGroups } from './role-grpo';

export interface Transition {
  /** The stream up to the action, earlier observations cut as the prompt showed them. */
  prefix: Segment[];
  /** The observation that followed, in full: what a prediction is scored against. */
  real: string;
}

/**
 * The transitions of a real rollout. The stream holds each observation cut to maxObservationTokens;
 * scoring against that cut text paid almost nothing (a cut JSON object is not JSON), so the real
 * observation comes from the rollout's turns, which keep it whole: the k-th act segment is the
 * k-th turn. The stream's text stands in only where a turn has no real observation.
 */
export function transitionsOf(r: Pick<RolloutResult, 'segments' | 'turns'>): Transition[] {
  const out: Transition[] = [];
  let act = -1;
  r.segments.forEach((s, j) => {
    if (s.role !== 'act') return;
    act++;
    const next = r.segments[j + 1];
    if (next?.role !== 'env') return;
    const turn = r.turns[act];
    out.push({ prefix: r.segments.slice(0, j + 1), real: turn?.real && turn.observation !== null ? turn.observation : next.text });
  });
  return out;
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
    const room = (t: Transition) => ctx.policy.maxSeqLen - flatten(t.prefix).length - 2;
    const pool = new Rng(deriveSeed(c.seed, 'rwml', step)).shuffle(results.flatMap(transitionsOf).filter((t) => room(t) >= 1));
    const size = Math.min(pool.length, c.rollout.tasksPerStep * c.rollout.k);
    // 2–3. G predictions of each transition's observation per batched generate call, rewarded by
    // similarity to the real one; too-easy transitions dropped and refilled before any advantage
    const probe = async (items: Transition[], round: number) => {
      const gens = await ctx.policy.generate(
        items.flatMap((t) =>
          Array.from({ length: G }, () => ({
            prompt: [...flatten(t.prefix), ...openIds(ctx.policy.specials, ctx.policy.specials.obs)],
            maxNewTokens: Math.min(c.rollout.maxObservationTokens, room(t)),
          })),
        ),
        { temperature: c.rollout.temperature, topP: c.rollout.topP, seed: deriveSeed(c.seed, 'rwml-generate', step, round) },
      );
      return Promise.all(
        items.map(async (t, i) => {
          const preds = gens
            .slice(i * G, (i + 1) * G)
            .map((g) => generatedSegment(ctx.policy.tokenizer, ctx.policy.specials, 'rehearse', g.tokens, g.logprobs));
          // A prediction that ran into its token budget (a forced end) is judged on what it had room for.
          const sims = await Promise.all(preds.map((p) => similarity(p.text, t.real, { cut: p.tail > 0 })));
          const rewards = sims.map((x) => similarityReward(Math.min(1, Math.max(0, x)), c.rwml.reward, c.rwml.threshold));
          return { t, preds, sims, rewards };
        }),
      );
    };
    const { kept, probed } = await fillBatch(pool, size, probe, {
      easyThreshold: c.rwml.easyThreshold,
      keepProbability: c.rwml.keepEasyProbability,
      rng: new Rng(deriveSeed(c.seed, 'rwml-drop', step)),
    });
    const trainRows = kept.flatMap(({ t, preds, rewards }) => {
      const adv = groupAdvantages(rewards, true);
      return preds.map((p, g) => pgRow([...t.prefix, { ...p, advantage: adv[g] }]));
    });
    // 4. update (skipped when every transition was dropped or none fit the context)
    const rewards = probed.flatMap((p) => p.rewards);
    const metrics: Record<string, number> = {
      ...rolloutMetrics(results, [], performance.now() - t0),
      'rwml/transitions': probed.length,
      'rwml/kept': kept.length,
      'rwml/reward': mean(rewards),
      'rwml/rewarded': mean(rewards.map((r) => (r > 0 ? 1 : 0))),
      'rwml/similarity': mean(probed.flatMap((p) => p.sims)),
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

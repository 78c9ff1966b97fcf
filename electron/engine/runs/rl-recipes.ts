/**
 * Stage recipes: what `envace train --algo sft` and `--algo grpo-real|envace --init-from RUN` train
 * when no other knob is given, and what New run shows once a method is picked. The SFT stage is the
 * recommended recipe's own warm start (recipes.ts) as a run of its own; an RL method gets the RL
 * recipe of its from-scratch preset (steps, K, tasks per step, rate, temperature, dynamic sampling)
 * over the recipe's world and rollout shape, so the prompts it samples are the ones its SFT
 * checkpoint was trained on.
 *
 * Kept apart from recipes.ts: these are about RL from a checkpoint, that file about what trains from
 * scratch; one resolver (`stageRecipe`) serves the CLI, the engine's `runs.recipe` and New run.
 */
import type { Algo, ModelRef, RecipeVariant, RunConfigInput } from '../../contract';
import { recommendedRecipe, type Recipe } from './recipes';

/** The knobs an RL recipe sets; everything else comes from the recipe its checkpoint was trained with. */
export interface RlKnobs {
  steps: number;
  k: number;
  tasksPerStep: number;
  lr: number;
  warmupSteps: number;
  temperature: number;
  dynamicSampling: boolean;
  evalEvery: number;
  checkpointEvery: number;
  /** The RL run's curriculum where it differs from SFT's (retail: a mix whose groups have reward variance). */
  taskMix?: RunConfigInput['taskMix'];
}

const NOT_MEASURED: Recipe['expected'] = { minutes: null, heldoutSuccess: null, diskMB: null, measured: null };

/**
 * Per from-scratch preset. Measured on tiny's retail look-ups (README "Learning to generalise",
 * 2026-12-03, from the recipe's 500-step SFT checkpoint, 150 held-out tasks): grpo-real at 1e-4,
 * K 8, 4 tasks a step, temperature 1 with dynamic sampling lifted held-out success 52.7 % → 60.0 % by
 * step 30 (11 tasks up, none down; envace at the same knobs fell to 46 %); without dynamic sampling only 0–0.5 of the groups (≈ 0.25) had reward variance
 * — user-city's rollouts all score 0 — and three redraws raise the trained share to 0.5–1. At K 4 and
 * 1e-4–3e-4 earlier runs undid SFT (recipes.ts); temperature 1 because the ratio is taken against
 * the sampled distribution. No retail task mix gives RL more room on tiny yet: SFT on `all` (chains,
 * writes, refusals) was at 0–4 % held-out after 200–500 steps, so the RL run keeps the SFT mix.
 * From the robust recipe's checkpoint (varied layouts, item-price at 29–47 % after SFT; README "RL from the
 * robust recipe", 2026-12-07) the same knobs lifted held-out success 44 → 68 % in 40 steps (seed 0) and
 * 52 → 66 % in 100 (seed 1) with grpo-real; envace went +8 and −16 on the two seeds.
 * nano and small are scaled alike, not measured.
 */
const RL_SHAPES: Record<'nano' | 'tiny' | 'small', RlKnobs> = {
  nano: { steps: 100, k: 8, tasksPerStep: 4, lr: 1e-4, warmupSteps: 2, temperature: 1, dynamicSampling: true, evalEvery: 25, checkpointEvery: 25 },
  tiny: { steps: 100, k: 8, tasksPerStep: 4, lr: 1e-4, warmupSteps: 2, temperature: 1, dynamicSampling: true, evalEvery: 25, checkpointEvery: 25 },
  small: { steps: 100, k: 8, tasksPerStep: 4, lr: 5e-5, warmupSteps: 2, temperature: 1, dynamicSampling: true, evalEvery: 25, checkpointEvery: 25 },
};

/** The RL knobs for a recipe: its preset's RL recipe, or (an imported model) the recipe's own RL stage. */
export function rlKnobs(recipe: Recipe): RlKnobs {
  const model = recipe.config.model;
  if ('preset' in model) return RL_SHAPES[model.preset];
  const c = recipe.config;
  const rl = c.optim?.stages?.rl;
  return {
    steps: c.steps ?? 20,
    k: c.rollout?.k ?? 4,
    tasksPerStep: c.rollout?.tasksPerStep ?? 4,
    lr: rl?.lr ?? c.optim?.lr ?? 3e-4,
    warmupSteps: rl?.warmupSteps ?? c.optim?.warmupSteps ?? 5,
    temperature: c.rollout?.temperature ?? 1,
    dynamicSampling: c.rollout?.dynamicSampling ?? false,
    evalEvery: c.evalEvery ?? 0,
    checkpointEvery: c.checkpointEvery ?? 10,
  };
}

/** The recommended recipe's SFT warm start as a run of its own (`steps` counts for algo sft). */
function sftStage(recipe: Recipe): Recipe {
  const { sft, ...rest } = recipe.config;
  return {
    id: `${recipe.id}/sft`,
    config: { ...rest, algo: 'sft', steps: sft?.steps ?? rest.steps, sft: { ...sft, steps: 0 } },
    expected: NOT_MEASURED,
    notes: `The SFT stage of ${recipe.id} alone: ${recipe.notes}`,
  };
}

/** An RL method from a checkpoint: the recipe's world and rollout shape, the RL recipe's budget and rate. */
function rlStage(recipe: Recipe, algo: Algo): Recipe {
  const rl = rlKnobs(recipe);
  const c = recipe.config;
  // rwml → grpo-real shares the budget between its two stages, as the experiment does.
  const chain = algo === 'rwml+grpo-real';
  return {
    id: `${recipe.id}/${algo}`,
    config: {
      ...c,
      algo,
      ...(rl.taskMix !== undefined ? { taskMix: rl.taskMix } : {}),
      steps: chain ? Math.ceil(rl.steps / 2) : rl.steps,
      ...(chain ? { rwml: { ...c.rwml, stageSteps: Math.floor(rl.steps / 2) } } : {}),
      sft: { ...c.sft, steps: 0 },
      rollout: { ...c.rollout, k: rl.k, tasksPerStep: rl.tasksPerStep, temperature: rl.temperature, dynamicSampling: rl.dynamicSampling },
      // The run's only stages are RL (and RWML's world model): both at the RL rate, constant, set on
      // optim itself so that `--set optim.lr=…` is the rate the stage trains at.
      optim: { ...c.optim, lr: rl.lr, warmupSteps: rl.warmupSteps, schedule: 'constant', stages: { ...c.optim?.stages, rl: {}, world: {} } },
      evalEvery: rl.evalEvery,
      checkpointEvery: rl.checkpointEvery,
    },
    expected: NOT_MEASURED,
    notes: `${algo} from a checkpoint of ${recipe.id}: ${rl.steps} steps of ${rl.tasksPerStep} tasks × K ${rl.k} at temperature ${rl.temperature}, a constant rate ${rl.lr}${rl.dynamicSampling ? ', groups without reward variance redrawn' : ''}${rl.taskMix ? `, task mix ${rl.taskMix}` : ''}; held-out success every ${rl.evalEvery} steps. Give it the SFT run with --init-from.`,
  };
}

/**
 * The recipe for `env` × `model` when the method is chosen: none or sft+envace is the recommended
 * recipe itself, sft its SFT stage, an RL method or chain from a checkpoint the RL recipe.
 */
export function stageRecipe(env: string, model: ModelRef | undefined, algo: Algo | undefined, variant: RecipeVariant = 'recommended'): Recipe {
  const recipe = recommendedRecipe(env, model, variant);
  if (algo === undefined || algo === 'sft+envace') return recipe;
  if (algo === 'sft') return sftStage(recipe);
  // Every other method trains RL (or RWML's world model, then RL) from a checkpoint.
  return rlStage(recipe, algo);
}

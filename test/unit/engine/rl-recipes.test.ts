import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunConfig, plannedSteps } from '../../../electron/contract';
import { resolveTrainConfig } from '../../../electron/cli/commands/train';
import { planStages } from '../../../electron/engine/algorithms/train';
import { stageLearningRate } from '../../../electron/engine/algorithms/stage-schedule';
import { createEngine } from '../../../electron/engine/host';
import { inProcessClient } from '../../../electron/engine/in-process';
import { recommendedRecipe } from '../../../electron/engine/runs/recipes';
import { rlKnobs, stageRecipe } from '../../../electron/engine/runs/rl-recipes';
import { tempHome } from '../../helpers/engine';

const ENVS = ['retail', 'household', 'files', 'mock'];
const MODELS = [undefined, { preset: 'nano' as const }, { preset: 'tiny' as const }, { preset: 'small' as const }, { imported: 'qwen-0.5b' }];

describe('stage recipes (engine/runs/rl-recipes.ts)', () => {
  it('sft is the recommended recipe’s SFT stage alone: its steps, its world, one stage', () => {
    for (const env of ENVS) {
      for (const model of MODELS) {
        const whole = RunConfig.parse(recommendedRecipe(env, model).config);
        const sft = RunConfig.parse(stageRecipe(env, model, 'sft').config);
        expect(planStages(sft).map((s) => s.algo)).toEqual(['sft']);
        expect(plannedSteps(sft)).toBe(whole.sft.steps);
        expect({ worldMode: sft.worldMode, taskMix: sft.taskMix, worldSize: sft.worldSize, trainTasks: sft.trainTasks, model: sft.model }).toEqual({
          worldMode: whole.worldMode,
          taskMix: whole.taskMix,
          worldSize: whole.worldSize,
          trainTasks: whole.trainTasks,
          model: whole.model,
        });
        expect(sft.sft.worldModelLossFrom).toBe(whole.sft.worldModelLossFrom);
        // The warm start's own schedule, step for step.
        for (const step of [1, Math.ceil(whole.sft.steps / 2), whole.sft.steps])
          expect(stageLearningRate(sft, planStages(sft)[0], step)).toBeCloseTo(stageLearningRate(whole, planStages(whole)[0], step), 12);
      }
    }
  });

  it('an RL method trains only RL at the RL recipe’s budget, K, rate and temperature, over the prompts its SFT stage saw', () => {
    for (const env of ENVS) {
      for (const model of MODELS) {
        const sft = RunConfig.parse(stageRecipe(env, model, 'sft').config);
        const rl = rlKnobs(recommendedRecipe(env, model));
        for (const algo of ['grpo-real', 'envace'] as const) {
          const c = RunConfig.parse(stageRecipe(env, model, algo).config);
          const stages = planStages(c);
          expect(stages.map((s) => s.algo)).toEqual([algo]);
          expect(plannedSteps(c)).toBe(rl.steps);
          expect(c.rollout).toMatchObject({ k: rl.k, tasksPerStep: rl.tasksPerStep, temperature: rl.temperature, dynamicSampling: rl.dynamicSampling, topP: 1 });
          // The rate the loop actually sets after warm-up, not only the knob.
          expect(stageLearningRate(c, stages[0], rl.warmupSteps + 2)).toBeCloseTo(rl.lr, 12);
          expect(stageLearningRate(c, stages[0], rl.steps)).toBeCloseTo(rl.lr, 12);
          // The same prompts as the checkpoint's training: a changed layout would be a new task for the policy.
          for (const key of ['maxTurns', 'maxTokensPerTurn', 'maxObservationTokens', 'toolSchemas'] as const) expect(c.rollout[key], `${env} ${key}`).toBe(sft.rollout[key]);
          expect({ worldMode: c.worldMode, worldSize: c.worldSize, model: c.model }).toEqual({ worldMode: sft.worldMode, worldSize: sft.worldSize, model: sft.model });
          expect(c.taskMix).toBe(rl.taskMix ?? sft.taskMix);
          // From-scratch recipes evaluate on the way; imported ones do not (evalEvery 0: in-run evaluation takes
          // every held-out task, 1,238 on bfcl) and their RL stage keeps that.
          if ('preset' in c.model) expect(c.evalEvery).toBeGreaterThan(0);
          else expect(c.evalEvery).toBe(rl.evalEvery);
        }
      }
    }
  });

  it('no method, or sft+envace, is the recommended recipe itself; rwml+grpo-real splits the RL budget', () => {
    expect(stageRecipe('retail', undefined, undefined)).toEqual(recommendedRecipe('retail'));
    expect(stageRecipe('retail', undefined, 'sft+envace')).toEqual(recommendedRecipe('retail'));
    const chain = RunConfig.parse(stageRecipe('retail', undefined, 'rwml+grpo-real').config);
    expect(planStages(chain).map((s) => s.algo)).toEqual(['rwml', 'grpo-real']);
    expect(plannedSteps(chain)).toBe(rlKnobs(recommendedRecipe('retail')).steps);
  });
});

describe('envace train --algo takes the stage recipe through the engine', () => {
  it('sft, then grpo-real/envace --init-from with no other knob; --set and --steps still override', async () => {
    const home = tempHome('envace-rl-recipes-');
    const engine = createEngine({ home });
    const api = inProcessClient(engine);
    const said: string[] = [];
    const say = (line: string) => said.push(line);
    try {
      const sft = await resolveTrainConfig(api, { env: 'retail', algo: 'sft' }, say);
      expect(RunConfig.parse(sft)).toEqual(RunConfig.parse(stageRecipe('retail', undefined, 'sft').config));
      expect(said[0]).toMatch(/^recipe retail\/tiny\/sft: /);

      // A stored SFT run on nano: the RL recipe follows the checkpoint's model.
      const parent = await api.call('runs.create', { config: RunConfig.parse({ ...sft, model: { preset: 'nano' } }) });
      for (const algo of ['grpo-real', 'envace'] as const) {
        const rl = RunConfig.parse(await resolveTrainConfig(api, { env: 'retail', algo, initFrom: parent.id }, say));
        const { initFrom, ...rest } = rl;
        expect(initFrom).toEqual({ runId: parent.id });
        expect(rest).toEqual(RunConfig.parse(stageRecipe('retail', { preset: 'nano' }, algo).config));
      }
      const knobs = rlKnobs(recommendedRecipe('retail', { preset: 'nano' }));
      const tuned = RunConfig.parse(
        await resolveTrainConfig(api, { env: 'retail', algo: 'grpo-real', initFrom: parent.id, steps: '7', set: ['rollout.k=2', 'optim.lr=0.0003'] }, say),
      );
      expect(tuned).toMatchObject({ steps: 7, rollout: { k: 2, tasksPerStep: knobs.tasksPerStep, temperature: knobs.temperature } });
      expect(stageLearningRate(tuned, planStages(tuned)[0], 7)).toBeCloseTo(3e-4, 12);
      // Without --algo nothing changes: the whole recommended recipe.
      expect(RunConfig.parse(await resolveTrainConfig(api, { env: 'retail' }, say))).toEqual(RunConfig.parse(recommendedRecipe('retail').config));
      // --quick: the Quickstart's recipe where the env × model has one, the recommended one elsewhere; never with --config.
      said.length = 0;
      expect(RunConfig.parse(await resolveTrainConfig(api, { env: 'retail', quick: true }, say))).toEqual(RunConfig.parse(recommendedRecipe('retail', undefined, 'quick').config));
      expect(said[0]).toMatch(/^recipe retail\/tiny\/quick: /);
      expect(RunConfig.parse(await resolveTrainConfig(api, { env: 'household', quick: true }, say))).toEqual(RunConfig.parse(recommendedRecipe('household').config));
      await expect(resolveTrainConfig(api, { env: 'retail', quick: true, config: '/nonexistent.json' }, say)).rejects.toThrow(/--quick picks the quick recipe/);
      // RL from random weights is allowed, and said.
      said.length = 0;
      await resolveTrainConfig(api, { env: 'retail', algo: 'grpo-real' }, say);
      expect(said.some((l) => /without --init-from/.test(l))).toBe(true);
      expect((await api.call('runs.recipe', { env: 'retail', algo: 'envace' })).id).toBe('retail/tiny/envace');
    } finally {
      await engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

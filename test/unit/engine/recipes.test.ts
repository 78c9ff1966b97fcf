import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../electron/contract';
import { planStages } from '../../../electron/engine/algorithms/train';
import { recommendedRecipe } from '../../../electron/engine/runs/recipes';
import { configFromFlags } from '../../../electron/cli/commands/train';
import { createEngine } from '../../../electron/engine/host';
import { inProcessClient } from '../../../electron/engine/in-process';
import { tempHome } from '../../helpers/engine';
import fs from 'node:fs';
import { patience } from '../../helpers/patience';

const ENVS = ['retail', 'household', 'files', 'mock', 'tau-retail', 'tau2-telecom', 'bfcl', 'my-mcp-server'];

describe('recommended recipes', () => {
  it('every env × preset (and an imported model) has one that the contract accepts and that plans its stages', () => {
    for (const env of ENVS) {
      for (const model of [undefined, { preset: 'nano' as const }, { preset: 'tiny' as const }, { preset: 'small' as const }, { imported: 'qwen-0.5b' }]) {
        const recipe = recommendedRecipe(env, model);
        const parsed = RunConfig.safeParse(recipe.config);
        expect(parsed.success, `${recipe.id}: ${parsed.success ? '' : parsed.error.message}`).toBe(true);
        const config = parsed.data!;
        expect(config.env).toBe(env);
        // sft+envace must carry its SFT stage: the quickstart used to fail at once on sft.steps 0.
        expect(planStages(config).map((s) => s.algo)).toEqual(['sft', 'envace']);
        // RL trains with a ratio against the sampled distribution: no top-p truncation, a temperature above 0.
        expect(config.rollout.topP).toBe(1);
        expect(config.rollout.temperature).toBeGreaterThan(0);
        expect(recipe.notes.length).toBeGreaterThan(10);
      }
    }
  });

  it('an imported model gets LoRA, a bounded context and tool schemas in every env; presets keep the from-scratch shape', () => {
    // bfcl's few functions per task fit as full schemas; retail's 16 tau2 tools (3,350 tokens in full) go one line each.
    expect(RunConfig.parse(recommendedRecipe('bfcl', { imported: 'qwen' }).config)).toMatchObject({ lora: { rank: 8 }, contextTokens: 1024, rollout: { toolSchemas: 'full', maxTurns: 1 } });
    expect(RunConfig.parse(recommendedRecipe('retail', { imported: 'qwen' }).config)).toMatchObject({ lora: { rank: 8 }, contextTokens: 1024, rollout: { toolSchemas: 'compact' } });
    for (const env of ['bfcl', 'retail', 'files', 'memory', 'some-users-mcp-server']) {
      const recipe = recommendedRecipe(env, { imported: 'smollm2' });
      const config = RunConfig.parse(recipe.config);
      expect(recipe.id).toBe(`${env}/imported`);
      expect(config.model).toEqual({ imported: 'smollm2' });
      expect(config.lora.rank).toBeGreaterThan(0);
      expect(config.rollout.toolSchemas).not.toBe('none');
      expect(config.sft.steps).toBeGreaterThan(0);
    }
    expect(RunConfig.parse(recommendedRecipe('household').config)).toMatchObject({ model: { preset: 'tiny' }, worldSize: 3, rollout: { maxObservationTokens: 384, toolSchemas: 'none' } });
    // retail on tiny (the default preset) trains procedural look-ups on many worlds, act tokens first: what made tiny copy ids;
    // the recommended recipe in varied layouts (one template first, then the ramp) with memory-aware SFT, so it copies by content.
    expect(RunConfig.parse(recommendedRecipe('retail').config)).toMatchObject({
      model: { preset: 'tiny' },
      worldMode: 'procedural',
      taskMix: 'lookups',
      trainTasks: 8000,
      layout: 'varied',
      sft: { worldModelLoss: true, fixedLayoutSteps: 400, memoryFraction: 0.25 },
      optim: { schedule: 'constant' },
    });
    const recommended = RunConfig.parse(recommendedRecipe('retail').config);
    // The observation loss and the memory rows come after the curriculum has moved to varied text.
    expect(recommended.sft.worldModelLossFrom).toBeGreaterThan(recommended.sft.fixedLayoutSteps + recommended.sft.layoutRampSteps);
    expect(recommended.sft.memoryFrom).toBeGreaterThan(recommended.sft.fixedLayoutSteps + recommended.sft.layoutRampSteps);
    // The quick one (the Quickstart's): one template, 600 SFT steps, observations from 401.
    const quick = recommendedRecipe('retail', undefined, 'quick');
    expect(quick.id).toBe('retail/tiny/quick');
    expect(RunConfig.parse(quick.config)).toMatchObject({ layout: 'fixed', trainTasks: 8000, sft: { steps: 600, worldModelLossFrom: 401, fixedLayoutSteps: 0, memoryFraction: 0 } });
    expect(quick.expected.heldoutSuccess).toBeGreaterThan(0);
    // An env × model without a quick recipe gets the recommended one.
    expect(recommendedRecipe('household', undefined, 'quick')).toEqual(recommendedRecipe('household'));
    expect(recommendedRecipe('retail', { preset: 'nano' }, 'quick')).toEqual(recommendedRecipe('retail', { preset: 'nano' }));
    // nano on retail trains procedural look-ups (on the fixed world it solves no held-out task), with its measured figures.
    const retailNano = recommendedRecipe('retail', { preset: 'nano' });
    expect(RunConfig.parse(retailNano.config)).toMatchObject({ worldMode: 'procedural', taskMix: 'lookups', rollout: { maxTurns: 3 } });
    expect(retailNano.expected.heldoutSuccess).toBeGreaterThan(0);
    expect(RunConfig.parse(recommendedRecipe('household', { preset: 'nano' }).config).worldMode).toBe('fixed');
    // The RL stage runs at its own rate, not at the end of the SFT cosine.
    expect(RunConfig.parse(recommendedRecipe('household', { preset: 'nano' }).config).optim.stages.rl).toMatchObject({ schedule: 'constant' });
  });

  it('envace train without --algo takes the recipe and lets flags adjust it', () => {
    const recipe = recommendedRecipe('retail', { preset: 'nano' }).config as unknown as Record<string, unknown>;
    const config = configFromFlags({ env: 'retail', preset: 'nano', steps: '3', set: ['sft.steps=50'] }, recipe);
    expect(config).toMatchObject({ algo: 'sft+envace', steps: 3, sft: { steps: 50 }, model: { preset: 'nano' }, rollout: { temperature: 0.8 } });
  });

  it('every from-scratch recipe passes pre-flight: stages, context fit of prompts and demonstrations, device', async () => {
    const home = tempHome('envace-recipes-');
    const engine = createEngine({ home });
    const api = inProcessClient(engine);
    try {
      for (const env of ['retail', 'household', 'files', 'mock']) {
        for (const preset of ['nano', 'tiny'] as const) {
          const recipe = await api.call('runs.recipe', { env, model: { preset } });
          const checked = await api.call('runs.preflight', { config: recipe.config });
          const bad = checked.checks.filter((c) => !c.ok || c.warning).map((c) => `${c.name}: ${c.detail}`);
          expect(bad, recipe.id).toEqual([]);
          expect(checked.ok, recipe.id).toBe(true);
        }
      }
    } finally {
      await engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  }, patience(180_000));
});

// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { NewRunView } from '../../../../renderer/src/views/new-run/NewRunView';
import { recommendedRecipe } from '../../../../electron/engine/runs/recipes';
import { rlKnobs, stageRecipe } from '../../../../electron/engine/runs/rl-recipes';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

/** The engine's own recipes, answered as runs.recipe does (resolved through the schema). */
function renderNewRun(extra: Parameters<typeof fakeApi>[0] = {}) {
  window.location.hash = '#/new';
  const fake = fakeApi({
    ...extra,
    'envs.ids': () => ({ ids: ['mock', 'retail'] }),
    'models.list': () => ({ items: [] }),
    'runs.recipe': (input) => {
      const { env, model, algo } = input as { env: string; model: { preset: 'nano' | 'tiny' | 'small' }; algo?: 'sft' };
      const recipe = stageRecipe(env, model, algo);
      return { ...recipe, config: RunConfig.parse(recipe.config) };
    },
  });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <NewRunView />
    </ConnectionProvider>,
  );
  return fake;
}

const field = (path: string) => document.querySelector<HTMLInputElement>(`[data-path="${path}"]`);

describe('New run starts from the recommended recipe', () => {
  it('starts from the env and model stored as defaults in Settings, and their recipe', async () => {
    renderNewRun({
      'settings.get': () => ({
        dataHome: '/h',
        settingsFile: '/h/settings.json',
        homeBytes: 1,
        freeBytes: 1,
        access: { writable: true, owner: null },
        defaults: { newRun: { env: 'retail', model: 'nano' }, evaluate: { split: 'heldout', limit: null } },
      }),
    });
    await waitFor(() => expect(field('env')!.value).toBe('retail'));
    expect(field('model')!.value).toBe('nano');
    expect((await screen.findByTestId('recipe-banner')).textContent).toContain('Recipe retail/nano');
  });

  it('applies the recipe of the chosen env × model, shows its figures, and marks knobs modified against it', async () => {
    renderNewRun();
    await screen.findByTestId('recipe-pick-env');
    await waitFor(() => expect(field('env')!.querySelectorAll('option').length).toBeGreaterThan(1));
    fireEvent.change(field('env')!, { target: { value: 'retail' } });
    const banner = await screen.findByTestId('recipe-banner');
    expect(banner.textContent).toContain('Recipe retail/tiny');
    expect(banner.textContent).toMatch(/about 17 min here · held-out success about 50 %/);
    // Knobs from the recipe, not the schema's defaults (sft.steps 1,600 vs 0 steps of SFT by default, 8,000 worlds).
    await waitFor(() => expect(field('sft.steps')!.value).toBe('1600'));
    expect(screen.getByTestId('recipe-modified').textContent).toBe('unmodified');
    fireEvent.change(field('steps')!, { target: { value: '40' } });
    expect(screen.getByTestId('recipe-modified').textContent).toBe('1 knob modified');
    expect(field('steps')!.closest('.knob')!.classList.contains('knob-changed')).toBe(true);
    // Another model: its recipe replaces the knobs, but the one set by hand stays as typed.
    fireEvent.change(field('model')!, { target: { value: 'nano' } });
    await waitFor(() => expect(screen.getByTestId('recipe-banner').textContent).toContain('Recipe retail/nano'));
    expect(field('steps')!.value).toBe('40');
    expect(field('rollout.maxTurns')).toBeNull();
    // Applied: only the knob typed by hand differs from the nano recipe.
    await waitFor(() => expect(screen.getByTestId('recipe-modified').textContent).toBe('1 knob modified'));
    fireEvent.click(screen.getByTestId('reset-recipe'));
    expect(field('steps')!.value).toBe(String(RunConfig.parse(recommendedRecipe('retail', { preset: 'nano' }).config).steps));
    expect(screen.getByTestId('recipe-modified').textContent).toBe('unmodified');
  });

  it('a method picked by hand brings its recipe: the SFT stage alone, or the RL recipe from a checkpoint', async () => {
    const fake = renderNewRun();
    await screen.findByTestId('recipe-pick-env');
    await waitFor(() => expect(field('env')!.querySelectorAll('option').length).toBeGreaterThan(1));
    fireEvent.change(field('env')!, { target: { value: 'retail' } });
    await waitFor(() => expect(field('sft.steps')!.value).toBe('1600'));
    fireEvent.change(field('algo')!, { target: { value: 'grpo-real' } });
    await waitFor(() => expect(screen.getByTestId('recipe-banner').textContent).toContain('Recipe retail/tiny/grpo-real'));
    const rl = rlKnobs(recommendedRecipe('retail'));
    await waitFor(() => expect(field('rollout.k')!.value).toBe(String(rl.k)));
    expect(field('steps')!.value).toBe(String(rl.steps));
    expect(field('sft.steps')!.value).toBe('0');
    expect(fake.calls.filter((c) => c.method === 'runs.recipe').at(-1)?.input).toEqual({ env: 'retail', model: { preset: 'tiny' }, algo: 'grpo-real' });
    fireEvent.change(field('algo')!, { target: { value: 'sft' } });
    await waitFor(() => expect(screen.getByTestId('recipe-banner').textContent).toContain('Recipe retail/tiny/sft'));
    await waitFor(() => expect(field('steps')!.value).toBe('1600'));
    expect(screen.getByTestId('recipe-modified').textContent).toBe('unmodified');
  });

  it('shows the basic knobs first and every knob on request', async () => {
    renderNewRun();
    await screen.findByTestId('recipe-pick-env');
    const basic = document.querySelectorAll('[data-path]').length;
    expect(field('rollout.maxTurns')).toBeNull();
    fireEvent.click(screen.getByTestId('advanced-toggle'));
    expect(field('rollout.maxTurns')).not.toBeNull();
    expect(document.querySelectorAll('[data-path]').length).toBeGreaterThan(basic * 3);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import { serve, type RunningServer } from '../../electron/server';
import { ensureRendererBuilt, launchChromium, shots, staticDir } from './harness';
import { patience } from '../helpers/patience';

/**
 * Web mode over the engine as shipped: the built-in environment registry and real training
 * (the tiny preset, a few steps on CPU). Start a run, watch its curves grow, open a rollout.
 */

let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  ensureRendererBuilt();
  fs.mkdirSync(shots, { recursive: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: 'light' });
  context.setDefaultTimeout(patience(30_000));
});

afterAll(async () => {
  await browser?.close();
});

describe('web mode over the built-in environment registry', () => {
  let realHome: string;
  let realEngine: Engine;
  let realServer: RunningServer;
  let realApi: WorkbenchApi;

  beforeAll(async () => {
    realHome = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-e2e-envs-'));
    realEngine = createEngine({ home: realHome });
    realApi = inProcessClient(realEngine);
    realServer = await serve({ engine: realEngine, staticDir });
  });

  afterAll(async () => {
    await realServer?.close();
    await realEngine?.close();
    if (realHome) fs.rmSync(realHome, { recursive: true, force: true });
  });

  it('lists every registered environment and calls a real tool from the console', async () => {
    const { items } = await realApi.call('envs.list', {});
    expect(items.length).toBeGreaterThan(0);
    const target = items.find((e) => e.toolCount > 0)!;
    const detail = await realApi.call('envs.get', { id: target.id });

    const envPage = await context.newPage();
    await envPage.goto(`${realServer.url}#/envs?id=${encodeURIComponent(target.id)}`);
    await envPage.getByTestId('env-detail').waitFor();
    expect(await envPage.getByTestId('envs-list').locator('li').count()).toBe(items.length);
    expect(await envPage.getByTestId('env-detail').locator('details.tool').count()).toBe(detail.tools.length);

    // The skeleton call (required arguments left empty) gets exactly the answer the engine gives in-process.
    const toolConsole = envPage.getByTestId('tool-console');
    const args = JSON.parse(await toolConsole.getByTestId('console-args').inputValue()) as Record<string, never>;
    const expected = await realApi.call('envs.call', { env: target.id, tool: detail.tools[0]!.name, arguments: args });
    await toolConsole.getByTestId('console-call').click();
    await toolConsole.getByTestId('console-result').waitFor();
    expect(await toolConsole.getByTestId('console-result').getAttribute('data-ok')).toBe(String(expected.ok));
    expect(await toolConsole.locator('.console-result pre').textContent()).toBe(expected.observation);
    await envPage.screenshot({ path: path.join(shots, 'environments-registry.png'), fullPage: true });
    await envPage.close();
  });

  it('starts a run from the table, shows its curves growing live, then its rollouts', { timeout: patience(120_000) }, async () => {
    // Small enough to train in seconds on a CPU: the tiny preset, two rollouts of one task per step.
    const config = { env: 'mock', name: 'e2e training', algo: 'grpo-real' as const, model: { preset: 'tiny' as const }, steps: 3, checkpointEvery: 1, rollout: { k: 2, tasksPerStep: 1, maxTurns: 2, maxTokensPerTurn: 16, toolSchemas: 'none' as const } };
    const run = await realApi.call('runs.create', { config });
    const runPage = await context.newPage();
    await runPage.goto(`${realServer.url}#/runs`);
    await runPage.getByRole('button', { name: 'Start run e2e training' }).click();
    await runPage.locator(`tr[data-run-id="${run.id}"]`).getByRole('link', { name: 'e2e training', exact: true }).click();

    const reward = runPage.locator('[data-metric="reward"] .line-chart');
    const points = async () => Number(/(\d+) points$/.exec((await reward.getAttribute('aria-label', { timeout: patience(60_000) })) ?? '')?.[1] ?? 0);
    // Opened right after Start, so the points arrive as run.metrics events while it trains.
    await expect.poll(points, { timeout: patience(90_000) }).toBe(3);
    await expect.poll(() => runPage.locator('.run-header .badge').textContent(), { timeout: patience(30_000) }).toBe('completed');
    const stored = await realApi.call('metrics.query', { runId: run.id, keys: ['reward'] });
    expect(stored.series[0]!.steps).toEqual([1, 2, 3]);
    await runPage.screenshot({ path: path.join(shots, 'dashboard-training.png'), fullPage: true });

    await runPage.getByRole('link', { name: 'Trajectories of this run →' }).click();
    const rollouts = await realApi.call('trajectories.list', { runId: run.id });
    await expect.poll(() => runPage.getByTestId('rollouts').locator('li a').count()).toBe(rollouts.items.length);
    await runPage.getByTestId('rollouts').locator('li a').first().click();
    const first = await realApi.call('trajectories.get', { id: rollouts.items[0]!.id });
    await expect.poll(() => runPage.getByTestId('rollout-detail').locator('.turn').count()).toBe(first.turns.length);
    expect(await runPage.getByTestId('rollout-detail').locator('.turn').evaluateAll((turns) => turns.map((t) => t.getAttribute('data-role')))).toEqual(first.turns.map((t) => t.role));
    await runPage.screenshot({ path: path.join(shots, 'trajectory-trained.png'), fullPage: true });

    // Fork from the first checkpoint: the child run trains the remaining steps on its own.
    const trained = await realApi.call('runs.get', { id: run.id });
    expect(trained.checkpoints.map((c) => c.step)).toEqual([1, 2, 3]);
    await runPage.getByRole('link', { name: 'Runs' }).click();
    await runPage.getByRole('button', { name: 'Fork run e2e training' }).click();
    const dialog = runPage.getByRole('dialog');
    await dialog.getByRole('combobox').selectOption('1');
    await dialog.getByRole('button', { name: 'Fork and train' }).click();
    await expect.poll(() => new URL(runPage.url()).hash).toMatch(/^#\/dashboard\?run=/);
    const childId = new URLSearchParams(new URL(runPage.url()).hash.split('?')[1]).get('run')!;
    await expect.poll(() => runPage.locator('.run-header .badge').textContent(), { timeout: patience(60_000) }).toBe('completed');
    const child = await realApi.call('runs.get', { id: childId });
    expect(child).toMatchObject({ parentRunId: run.id, parentStep: 1, name: 'e2e training ⑂ step 1', status: 'completed' });
    expect((await realApi.call('metrics.query', { runId: childId, keys: ['reward'] })).series[0]!.steps).toEqual([2, 3]);
    await runPage.close();
  });
});

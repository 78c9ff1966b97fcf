import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SystemInfo, WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import { JobCancelled } from '../../electron/engine/jobs/queue';
import { serve, type RunningServer } from '../../electron/server';
import { ensureRendererBuilt, fixtureCatalog, launchChromium, shots, staticDir } from './harness';
import { patience } from '../helpers/patience';

/**
 * Web mode end to end: the built renderer served by `serve()`, driven in Debian's Chromium
 * through every view. The engine is real (SQLite store on a temp home); the main suite uses a
 * fixture environment catalog so its figures are fixed, the last one the built-in registry.
 */

let home: string;
let engine: Engine;
let api: WorkbenchApi;
let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
const go = async (hash: string) => {
  // A string, because this file is type-checked without the DOM library.
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
};

beforeAll(async () => {
  ensureRendererBuilt();
  fs.mkdirSync(shots, { recursive: true });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-e2e-'));
  engine = createEngine({ home, envs: fixtureCatalog });
  api = inProcessClient(engine);
  server = await serve({ engine, staticDir });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: 'light' });
  context.setDefaultTimeout(patience(30_000));
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await engine?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('web mode in Chromium', () => {
  it('refuses the page without the session token', async () => {
    const stranger = await browser.newContext();
    const response = await (await stranger.newPage()).goto(`http://127.0.0.1:${server.port}/`);
    expect(response?.status()).toBe(401);
    expect(await response?.text()).toMatch(/^unauthorized/);
    await stranger.close();
  });

  it('shows the Runs empty state with the quickstart, then starts the quickstart run in one click and opens its Dashboard', async () => {
    await page.goto(server.url);
    const empty = page.getByTestId('runs-empty');
    await empty.waitFor();
    await expect.poll(() => page.getByTestId('quickstart').isEnabled()).toBe(true);
    // The quickstart trains the recommended recipe (engine/runs/recipes.ts); the CLI line does the same without --algo.
    expect(await empty.locator('.cli').textContent()).toBe('npx envace train --env fixture-shop --preset tiny');
    await shot('runs-empty');

    await page.getByTestId('quickstart').click();
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/dashboard\?run=/);
    const stored = await api.call('runs.list', {});
    expect(stored.total).toBe(1);
    expect(stored.items[0]!.algo).toBe('sft+envace');
    expect(new URL(page.url()).hash).toBe(`#/dashboard?run=${stored.items[0]!.id}`);
    // Started, not only stored: the fixture world cannot train, so it ends failed, saying why.
    await expect.poll(async () => (await api.call('runs.get', { id: stored.items[0]!.id })).status, { timeout: patience(60_000) }).toBe('failed');
    await page.getByTestId('run-failure').waitFor();
    await page.goto(server.url);
    const row = page.getByTestId('runs-table').locator('tbody tr');
    await row.first().waitFor();
    expect(await row.first().getAttribute('data-run-id')).toBe(stored.items[0]!.id);
  });

  it('lists a run created through the API without a reload (live run.status refresh)', async () => {
    const run = await api.call('runs.create', { config: { env: 'fixture-shop', name: 'e2e from the api', algo: 'grpo-real', steps: 20 } });
    const row = page.locator(`tr[data-run-id="${run.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('e2e from the api');
    expect(await row.textContent()).toContain('grpo-real');
    expect(await row.textContent()).toContain('0/20');

    // Progress written by the engine shows up live too.
    engine.services.store.runs.update(run.id, { status: 'running', currentStep: 5, etaMs: 90_000 });
    engine.services.events.emit('run.progress', { runId: run.id, step: 5, totalSteps: 20, fraction: 0.25, etaMs: 90_000, phase: 'rollout' });
    await expect.poll(() => row.textContent()).toContain('5/20');
    expect(await row.textContent()).toContain('ETA 1 min 30 s');
    expect(await row.locator('.badge').textContent()).toBe('running');

    // Search narrows the table (server-side through runs.list).
    await page.getByTestId('runs-search').fill('from the api');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByTestId('runs-search').fill('');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await shot('runs-table');
  });

  it('offers only the actions a status allows, and deletes through a confirmation dialog', async () => {
    const running = (await api.call('runs.list', { status: 'running' })).items[0]!;
    const runningRow = page.locator(`tr[data-run-id="${running.id}"]`);
    expect(await runningRow.getByRole('button').allTextContents()).toEqual(['Cancel']);

    // The run starts between opening the dialog and confirming: the engine refuses, the dialog says why.
    // The quickstart run, which failed on the fixture world: it can be deleted, not started again.
    const quick = (await api.call('runs.list', { status: 'failed' })).items[0]!;
    expect(await page.locator(`tr[data-run-id="${quick.id}"]`).getByRole('button').allTextContents()).toEqual(['more', 'Delete']); // 'more' opens the failure's reason
    await page.getByRole('button', { name: `Delete run ${quick.name}` }).click();
    const dialog = page.getByRole('dialog');
    engine.services.store.runs.update(quick.id, { status: 'queued' });
    await dialog.getByRole('button', { name: 'Delete run' }).click();
    await expect.poll(() => dialog.textContent()).toContain(`run ${quick.id} is queued; cancel it before deleting`);
    await shot('delete-conflict');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await api.call('runs.list', {})).total).toBe(2);

    engine.services.store.runs.update(quick.id, { status: 'created' });
    await page.getByRole('button', { name: `Delete run ${quick.name}` }).click();
    await dialog.getByRole('button', { name: 'Delete run' }).click();
    await page.locator(`tr[data-run-id="${quick.id}"]`).waitFor({ state: 'detached' });
    expect((await api.call('runs.list', {})).items.map((r) => r.id)).toEqual([running.id]);
  });

  it('shows the real execution providers in the System panel', async () => {
    const info: SystemInfo = await api.call('system.info', {});
    await go('#/system');
    const list = page.getByTestId('providers');
    await list.waitFor();
    for (const provider of info.providers) {
      const item = list.locator(`li[data-provider="${provider.name}"]`);
      expect(await item.getAttribute('data-available')).toBe(String(provider.available));
      expect(await item.locator('.badge').textContent()).toBe(provider.available ? 'available' : 'unavailable');
    }
    expect(info.providers.find((p) => p.name === 'cpu')?.available).toBe(true);
    expect(await page.getByTestId('cpu-count').textContent()).toBe(String(info.cpuCount));
    expect(await page.getByTestId('memory').textContent()).toMatch(/^\d+(\.\d+)? GiB$/);
    expect(await page.getByTestId('data-home').textContent()).toBe(info.dataHome);
    expect(await page.getByTestId('transport').textContent()).toBe('websocket');
    await shot('system');
  });

  it('shows a running job live with its progress, in the sidebar too, and cancels it', async () => {
    const job = engine.services.jobs.enqueue({
      kind: 'evaluate',
      label: 'held-out check',
      run: (ctx) =>
        new Promise<void>((_resolve, reject) => {
          ctx.progress(0.25, 'task 1 of 4');
          ctx.signal.addEventListener('abort', () => reject(new JobCancelled()));
        }),
    });
    const row = page.locator(`li[data-job-id="${job.id}"]`);
    await expect.poll(() => row.getAttribute('data-state')).toBe('running');
    await expect.poll(() => row.textContent()).toContain('25 %');
    expect(await row.textContent()).toContain('task 1 of 4');
    expect(await page.getByTestId('jobs-indicator').textContent()).toContain('1 job running');
    await shot('jobs');
    await row.getByRole('button', { name: 'Cancel job held-out check' }).click();
    await expect.poll(() => row.getAttribute('data-state')).toBe('cancelled');
    await page.getByTestId('jobs-indicator').waitFor({ state: 'detached' });
    expect((await api.call('jobs.list', {})).items.find((j) => j.id === job.id)?.state).toBe('cancelled');
  });

  it('shows environments with task counts and a tool schema', async () => {
    await go('#/envs?id=fixture-shop');
    const detail = page.getByTestId('env-detail');
    await detail.waitFor();
    expect(await page.getByTestId('envs-list').textContent()).toContain('12 train4 held-out2 OOD');
    await detail.locator('summary', { hasText: 'find_order' }).click();
    await expect.poll(() => detail.locator('.cm-content').first().textContent()).toContain('"pattern": "^#W\\\\d+$"');

    // The console starts from the tool's required arguments and shows the environment's answer.
    const toolConsole = page.getByTestId('tool-console');
    expect(JSON.parse(await toolConsole.getByTestId('console-args').inputValue())).toEqual({ orderId: '' });
    await toolConsole.getByTestId('console-args').fill('{"orderId": "#W12"}');
    await toolConsole.getByTestId('console-call').click();
    await expect.poll(() => toolConsole.getByTestId('console-result').textContent()).toContain('{"orderId":"#W12","status":"pending"}');
    expect(await toolConsole.getByTestId('console-result').getAttribute('data-ok')).toBe('true');
    await toolConsole.getByTestId('console-args').fill('[1]');
    expect(await toolConsole.getByRole('alert').textContent()).toContain('must be a JSON object');
    expect(await toolConsole.getByTestId('console-call').isDisabled()).toBe(true);
    await shot('environments');
  });

  it('validates the New-run form next to the field and creates the run', async () => {
    await go('#/new');
    const steps = page.locator('[data-path="steps"]');
    await steps.waitFor();
    expect(await steps.inputValue()).toBe('50');
    await page.locator('[data-path="env"]').selectOption('fixture-shop');
    // The form starts from the recommended recipe for the pair (tiny's shape: an env without a measured recipe says so).
    await expect.poll(() => page.getByTestId('recipe-banner').textContent()).toMatch(/^Recipe fixture-shop\/tiny · unmodified/);
    expect(await page.getByTestId('recipe-banner').textContent()).toContain('Not measured yet for this pair');
    await expect.poll(() => page.locator('[data-path="sft.steps"]').inputValue()).toBe('400');
    await steps.fill('0');
    await expect.poll(() => page.locator('#knob-steps-issue').textContent()).toBe('must be at least 1');
    await page.locator('[data-path="rollout.k"]').fill('two');
    await page.getByTestId('create-run').click();
    expect(await page.locator('#knob-rollout-k-issue').textContent()).toBe('"two" is not a number');
    await shot('new-run-invalid');

    await steps.fill('12');
    await page.locator('[data-path="rollout.k"]').fill('8');
    await page.locator('[data-path="name"]').fill('from the form');
    // Pre-flight: the engine answers for this config; the fixture world is not one it can train in.
    await page.getByTestId('preflight-check').click();
    const preflight = page.getByTestId('preflight');
    await preflight.waitFor();
    expect(await preflight.locator('h2').textContent()).toBe('Pre-flight: fix these before starting');
    expect(await preflight.locator('li[data-ok="false"]').allTextContents()).toEqual([expect.stringMatching(/^✗ environment — unknown environment 'fixture-shop'/)]);
    // The recipe's 400 SFT steps before the 12 RL steps: no format-budget caution (the schema's bare defaults got one).
    expect(await preflight.locator('li[data-ok="true"] strong').allTextContents()).toEqual(['✓ config', '✓ memory', '✓ tokenizer', '✓ device', '✓ stages']);
    expect(await preflight.locator('p').textContent()).toMatch(/^412 training steps · \d+\.\d\dM parameters · about [\d.]+ (MiB|GiB) of memory$/);
    expect(await page.getByTestId('recipe-modified').textContent()).toBe('2 knobs modified'); // steps and rollout.k
    await shot('new-run-preflight');
    // The fixture environment cannot train, so this run is only stored.
    await page.getByTestId('start-now').uncheck();
    await page.getByTestId('create-run').click();
    await expect.poll(() => new URL(page.url()).hash).toBe('#/runs');
    const created = (await api.call('runs.list', { search: 'from the form' })).items[0]!;
    expect(created.config.steps).toBe(12);
    expect(created.config.rollout.k).toBe(8);
    await page.locator(`tr[data-run-id="${created.id}"]`).waitFor();
  });

  it('draws stored metric curves on the Dashboard and appends live points', async () => {
    const run = (await api.call('runs.list', { search: 'from the form' })).items[0]!;
    for (let step = 1; step <= 6; step += 1) {
      engine.services.store.writeStep({ runId: run.id, step, metrics: { reward: step / 10, 'loss/policy': 1 / step }, rollouts: [] });
    }
    await go(`#/dashboard?run=${run.id}`);
    const reward = page.locator('[data-metric="reward"] .line-chart');
    await reward.waitFor();
    expect(await reward.getAttribute('aria-label')).toBe('reward by step, from the form: 6 points');
    // The held-out success card leads (empty until the run evaluates), then one card per metric.
    expect(await page.locator('[data-metric] h3').allTextContents()).toEqual(['Held-out success (eval/success)', 'reward', 'loss/policy']);
    await reward.locator('canvas').waitFor();

    engine.services.events.emit('run.metrics', { runId: run.id, step: 7, values: { reward: 0.9 } });
    await expect.poll(() => reward.getAttribute('aria-label')).toBe('reward by step, from the form: 7 points');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('dashboard-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('overlays two runs selected in the Runs table on the Dashboard', async () => {
    const other = (await api.call('runs.list', { search: 'from the api' })).items[0]!;
    engine.services.store.writeStep({ runId: other.id, step: 2, metrics: { reward: 0.3 }, rollouts: [] });
    engine.services.store.writeStep({ runId: other.id, step: 4, metrics: { reward: 0.35 }, rollouts: [] });
    await go('#/runs');
    const compare = page.getByTestId('compare');
    await compare.waitFor();
    expect(await compare.isDisabled()).toBe(true);
    await page.getByLabel('Select run from the form to compare').check();
    await page.getByLabel('Select run e2e from the api to compare').check();
    expect(await compare.textContent()).toBe('Compare selected (2)');
    await compare.click();
    const reward = page.locator('[data-metric="reward"] .line-chart');
    // The live point at step 7 was never stored, so the reloaded history has 6.
    await expect.poll(() => reward.getAttribute('aria-label')).toMatch(/^reward by step, (from the form: 6 points; e2e from the api: 2 points|e2e from the api: 2 points; from the form: 6 points)$/);
    expect(await page.getByTestId('comparing').textContent()).toContain('Comparing with');
    // Only the run with a loss/policy series gets a line there.
    expect(await page.locator('[data-metric="loss/policy"] .line-chart').getAttribute('aria-label')).toBe('loss/policy by step, from the form: 6 points');
    await shot('dashboard-compare');
  });

  it('opens a stored rollout as a timeline of turns coloured by role', async () => {
    const run = (await api.call('runs.list', { search: 'from the form' })).items[0]!;
    const [rolloutId] = engine.services.store.writeStep({
      runId: run.id,
      step: 7,
      metrics: {},
      rollouts: [
        {
          runId: run.id,
          step: 7,
          taskId: 'cancel-1',
          env: 'fixture-shop',
          mode: 'rehearse',
          reward: 0.5,
          success: false,
          checklist: null,
          envCalls: 0,
          envWallMs: 0,
          tokens: 42,
          turns: [
            { role: 'prompt', text: 'Cancel order #W12' },
            { role: 'act', text: '<tool_call>{"name":"cancel_order","arguments":{"orderId":"#W12"}}</tool_call>', tokenIds: [11, 12, 13], logprobs: [-0.1, -2, -0.5], advantages: [0.5, 0.5, 0.5] },
            { role: 'rehearse', text: '{"status":"cancelled"}' },
          ],
        },
      ],
    });
    await go(`#/trajectories?run=${run.id}&rollout=${rolloutId}`);
    const detail = page.getByTestId('rollout-detail');
    await detail.waitFor();
    expect(await detail.locator('.turn').evaluateAll((turns) => turns.map((t) => t.getAttribute('data-role')))).toEqual(['prompt', 'act', 'rehearse']);
    expect(await detail.locator('.turn-rehearse .turn-text').textContent()).toBe('{"status":"cancelled"}');

    // The token view shows the act turn's stored ids with their values on hover.
    await detail.getByLabel('tokens by log-prob').check();
    const cells = detail.locator('.turn-act .tok');
    expect(await cells.allTextContents()).toEqual(['11', '12', '13']);
    expect(await cells.nth(1).getAttribute('title')).toBe('token 1: id 12 · log-prob -2 (p 0.1353) · advantage 0.5');
    expect(await detail.locator('.turn-prompt .turn-text').textContent()).toBe('Cancel order #W12');
    await shot('trajectory');
  });

  it('says plainly what Evaluate, Export and Memory need before they can act, without invented data', async () => {
    // Evaluate and Export work once a run has a checkpoint; until then they say so and offer nothing to press.
    const exportable = (await api.call('runs.list', {})).items.filter((r) => r.checkpoints.length > 0);
    await go('#/evaluate');
    await page.getByRole('heading', { name: 'Results' }).waitFor();
    if (exportable.length === 0) await page.getByTestId('evaluate-no-runs').waitFor();
    await go('#/export');
    await page.getByTestId('export-form').waitFor();
    if (exportable.length === 0) {
      await page.getByTestId('no-checkpoints').waitFor();
      expect(await page.getByTestId('export-submit').isDisabled()).toBe(true);
    }
    await go('#/memory');
    await page.getByTestId('memory-empty').waitFor();
    if (exportable.length === 0) await page.getByTestId('rehearse-no-runs').waitFor();
  });

  it('edits a rehearsal memory: invalid JSON is flagged, a text edit is saved as a new version', async () => {
    const structured = {
      rehearsals: [{ plan: [{ name: 'find_order', arguments: { orderId: '#W12' } }], predictedObservations: ['{"status":"pending"}'], answer: 'pending', confidence: -0.3, problems: [] }],
      consensus: { plan: [{ name: 'find_order', arguments: { orderId: '#W12' } }], answer: 'pending' },
      notes: '',
    };
    const original = engine.services.store.memories.insert({ env: 'fixture-shop', taskId: 'cancel-1', runId: null, structured, text: 'Plan: find_order #W12' });
    await go(`#/memory?id=${original.id}`);
    const detail = page.getByTestId('memory-detail');
    await detail.waitFor();
    const save = detail.getByRole('button', { name: 'Save as new version' });
    expect(await save.isDisabled()).toBe(true);

    await detail.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(',');
    await expect.poll(() => detail.locator('.knob-issue').textContent()).toMatch(/^not valid JSON/);
    expect(await save.isDisabled()).toBe(true);
    await page.keyboard.press('Backspace');
    await expect.poll(() => detail.locator('.knob-issue').count()).toBe(0);

    await detail.getByLabel('Memory text').fill('Plan: find_order #W12, then answer "pending"');
    await save.click();
    await expect.poll(() => new URL(page.url()).hash).not.toBe(`#/memory?id=${original.id}`);
    const edited = (await api.call('memories.list', { taskId: 'cancel-1' })).items.find((m) => m.id !== original.id)!;
    expect(edited).toMatchObject({ parentId: original.id, version: 2, source: 'edit', text: 'Plan: find_order #W12, then answer "pending"' });
    expect(edited.structured).toEqual(structured);
    await expect.poll(() => page.getByTestId('memory-detail').textContent()).toContain(`version 2 (edited from #${original.id})`);
    await shot('memory');
  });

  it('is usable from the keyboard: skip link, sidebar links, focus lands in the view', async () => {
    // A fresh load (a goto that only changes the hash would not reload), so focus starts at the top.
    await page.goto(`${server.url}#/runs`);
    await page.reload();
    await page.getByTestId('runs-table').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('New run');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).hash).toBe('#/new');
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('main');
  });

  it('says so while the server is away and catches up when it is back', async () => {
    await go('#/runs');
    await page.getByTestId('runs-table').waitFor();
    const { port, token } = server;
    await server.close();
    await page.getByTestId('connection-banner').waitFor();
    expect(await page.getByTestId('connection-banner').textContent()).toContain('reconnecting');
    await shot('reconnecting');

    // A run created while the page was disconnected shows once the socket is back (queries rerun).
    const missed = await api.call('runs.create', { config: { env: 'fixture-shop', name: 'created while away' } });
    server = await serve({ engine, staticDir, port, token });
    await page.getByTestId('connection-banner').waitFor({ state: 'detached', timeout: patience(10_000) });
    await page.locator(`tr[data-run-id="${missed.id}"]`).waitFor();
  });

  it('raised no uncaught errors in the page through all of the above', () => {
    expect(pageErrors).toEqual([]);
  });
});

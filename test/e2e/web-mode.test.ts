import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvDetail, SystemInfo, WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import type { EnvCatalog } from '../../electron/engine/services';
import { serve, type RunningServer } from '../../electron/server';

/**
 * Web mode end to end: the built renderer served by `serve()`, driven in Debian's Chromium.
 * The engine is real (SQLite store on a temp home); only its environment catalog is a fixture,
 * because built-in environments are registered by another part of the engine.
 */

const root = path.resolve(import.meta.dirname, '../..');
const staticDir = path.join(root, 'out/renderer');
const shots = path.join(root, 'test-output/e2e');

const fixtureEnv: EnvDetail = {
  id: 'fixture-shop',
  description: 'A two-tool shop used by the web-mode test',
  track: 'scratch',
  toolCount: 2,
  taskCounts: { train: 12, heldout: 4, ood: 2 },
  tools: [
    { name: 'find_order', description: 'Look up an order by id', parameters: { type: 'object', properties: { orderId: { type: 'string', pattern: '^#W\\d+$' } }, required: ['orderId'] } },
    { name: 'cancel_order', description: 'Cancel a pending order', parameters: { type: 'object', properties: { orderId: { type: 'string' }, reason: { type: 'string' } }, required: ['orderId'] } },
  ],
};
const catalog: EnvCatalog = {
  ids: () => [fixtureEnv.id],
  list: async () => [{ id: fixtureEnv.id, description: fixtureEnv.description, track: fixtureEnv.track, toolCount: fixtureEnv.toolCount, taskCounts: fixtureEnv.taskCounts }],
  get: async (id) => (id === fixtureEnv.id ? fixtureEnv : null),
  call: async (id, tool, args) => {
    if (id !== fixtureEnv.id) return null;
    if (tool === 'find_order' && args.orderId === '#W12') return { observation: '{"orderId":"#W12","status":"pending"}', ok: true, wallMs: 0.2 };
    return { observation: `Error: no order ${String(args.orderId)}`, ok: false, wallMs: 0.1 };
  },
};

let home: string;
let engine: Engine;
let api: WorkbenchApi;
let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Build once when the bundle is missing or older than the renderer sources (~1 s with Vite). */
function ensureRendererBuilt(): void {
  const index = path.join(staticDir, 'index.html');
  const sources = Math.max(newestMtime(path.join(root, 'renderer/src')), fs.statSync(path.join(root, 'renderer/index.html')).mtimeMs);
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources) return;
  const built = spawnSync('npx', ['vite', 'build', '--config', 'renderer/vite.config.ts'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`renderer build failed:\n${built.stdout}\n${built.stderr}`);
}

const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
const go = async (hash: string) => {
  // A string, because this file is type-checked without the DOM library.
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
};

beforeAll(async () => {
  ensureRendererBuilt();
  fs.mkdirSync(shots, { recursive: true });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-e2e-'));
  engine = createEngine({ home, envs: catalog });
  api = inProcessClient(engine);
  server = await serve({ engine, staticDir });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: 'light' });
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

  it('shows the Runs empty state with the quickstart, then creates the quickstart run in one click', async () => {
    await page.goto(server.url);
    const empty = page.getByTestId('runs-empty');
    await empty.waitFor();
    await expect.poll(() => page.getByTestId('quickstart').isEnabled()).toBe(true);
    expect(await empty.locator('.cli').textContent()).toBe('envace train --env fixture-shop --algo sft+envace --preset tiny');
    await shot('runs-empty');

    await page.getByTestId('quickstart').click();
    const row = page.getByTestId('runs-table').locator('tbody tr');
    await row.first().waitFor();
    const stored = await api.call('runs.list', {});
    expect(stored.total).toBe(1);
    expect(stored.items[0]!.algo).toBe('sft+envace');
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

  it('deletes through a confirmation dialog and shows the engine refusal for a running run', async () => {
    const running = (await api.call('runs.list', { status: 'running' })).items[0]!;
    await page.getByRole('button', { name: `Delete run ${running.name}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete run' }).click();
    await expect.poll(() => dialog.textContent()).toContain('cancel it before deleting');
    await shot('delete-conflict');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await api.call('runs.list', {})).total).toBe(2);

    const quick = (await api.call('runs.list', { status: 'created' })).items[0]!;
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
    await steps.fill('0');
    await expect.poll(() => page.locator('#knob-steps-issue').textContent()).toBe('must be at least 1');
    await page.locator('[data-path="rollout.k"]').fill('two');
    await page.getByTestId('create-run').click();
    expect(await page.locator('#knob-rollout-k-issue').textContent()).toBe('"two" is not a number');
    await shot('new-run-invalid');

    await steps.fill('12');
    await page.locator('[data-path="rollout.k"]').fill('8');
    await page.locator('[data-path="name"]').fill('from the form');
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
    expect(await reward.getAttribute('aria-label')).toBe('reward by step, 6 points');
    expect(await page.locator('[data-metric] h3').allTextContents()).toEqual(['reward', 'loss/policy']);
    await reward.locator('canvas').waitFor();

    engine.services.events.emit('run.metrics', { runId: run.id, step: 7, values: { reward: 0.9 } });
    await expect.poll(() => reward.getAttribute('aria-label')).toBe('reward by step, 7 points');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('dashboard-dark');
    await page.emulateMedia({ colorScheme: 'light' });
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
            { role: 'act', text: '<tool_call>{"name":"cancel_order","arguments":{"orderId":"#W12"}}</tool_call>' },
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
    await shot('trajectory');
  });

  it('says plainly which views arrive later, without invented data', async () => {
    for (const [hash, text] of [
      ['#/evaluate', 'Evaluate arrives with the evaluation issue'],
      ['#/export', 'Export arrives with the export issue'],
    ]) {
      await go(hash);
      await expect.poll(() => page.getByTestId('pending').locator('h2').textContent()).toBe(text);
    }
    await go('#/memory');
    await page.getByTestId('memory-empty').waitFor();
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

  it('raised no uncaught errors in the page through all of the above', () => {
    expect(pageErrors).toEqual([]);
  });
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
});

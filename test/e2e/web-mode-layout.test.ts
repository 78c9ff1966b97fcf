import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import { serve, type RunningServer } from '../../electron/server';
import { seedCheckpointedRun } from '../helpers/checkpoint';
import { ensureRendererBuilt, launchChromium, shots, staticDir } from './harness';
import { patience } from '../helpers/patience';

/**
 * Layouts that hold: every view at a desktop and a small window, over the built-in environments
 * and a run with many stored rollouts (87, the count that once pushed the detail ~6,800 px below
 * the list). Nothing may widen the page sideways, and an opened rollout must be on screen.
 */

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
  { width: 900, height: 700 },
] as const;
const ROLLOUTS = 87;

let home: string;
let engine: Engine;
let api: WorkbenchApi;
let server: RunningServer;
let browser: Browser;
let runId: string;
let rolloutIds: number[];
const pageErrors: string[] = [];
/** Per size and view: the page's scroll width and any element sticking out of the window. */
const report: string[] = [];

// Strings, because this file is type-checked without the DOM library.
/**
 * Elements whose box leaves the window sideways and are not inside a container that scrolls or
 * clips them. Boxes wholly off to the left (the skip link parked at -999 px) widen nothing.
 */
const OVERFLOW_PROBE = `(() => {
  const vw = window.innerWidth;
  const clips = (el) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.getAttribute('data-testid') ? '[data-testid=' + el.getAttribute('data-testid') + ']' : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const offenders = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= 0) continue;
    if (r.left >= -1 && r.right <= vw + 1) continue;
    // An absolutely positioned box escapes the clipping of ancestors below its containing block
    // (a visually hidden label in a scrolled table widens the page that way); a fixed one escapes all.
    const position = getComputedStyle(el).position;
    let below = position === 'absolute';
    let held = false;
    let p = el.parentElement;
    while (p && p !== document.body && position !== 'fixed') {
      if (below && getComputedStyle(p).position !== 'static') below = false;
      if (!below && clips(p)) { held = true; break; }
      p = p.parentElement;
    }
    if (!held) offenders.push(name(el) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
  }
  // Content spilling out of a card sideways (painted under its neighbour) fails too, though the window holds it.
  for (const card of document.querySelectorAll('main .card')) {
    if (card.scrollWidth > card.clientWidth + 1) offenders.push(name(card) + ' content ' + card.scrollWidth + ' px in ' + card.clientWidth + ' px');
  }
  return { scrollWidth: document.scrollingElement.scrollWidth, innerWidth: vw, offenders: offenders.slice(0, 8) };
})()`;

async function expectNoHorizontalOverflow(page: Page, label: string): Promise<void> {
  const probe = (await page.evaluate(OVERFLOW_PROBE)) as { scrollWidth: number; innerWidth: number; offenders: string[] };
  report.push(
    `${label}: scrollWidth ${probe.scrollWidth} / innerWidth ${probe.innerWidth}${probe.offenders.length ? `; outside: ${probe.offenders.join(', ')}` : '; nothing outside'}`,
  );
  expect(probe.offenders, label).toEqual([]);
  expect(probe.scrollWidth, label).toBeLessThanOrEqual(probe.innerWidth);
}

/** Waits until the view has nothing left saying "Loading …" (bounded: a view may keep probing). */
async function settle(page: Page): Promise<void> {
  await expect.poll(() => page.locator('main .loading').count(), { timeout: patience(60_000) }).toBe(0);
}

async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  console.log(`screenshot: ${file}`);
}

/** A rollout whose texts are long and partly unbreakable, the way real tool output is. */
function rollout(step: number, i: number) {
  const order = JSON.stringify({
    orderId: `#W${1000 + i}`,
    items: Array.from({ length: 12 }, (_, k) => ({ sku: `SKU-${k}-${'x'.repeat(12)}`, qty: k })),
    note: 'y'.repeat(180),
  });
  return {
    runId,
    step,
    taskId: `task-${i % 9}-with-a-long-identifier-${'z'.repeat(24)}`,
    env: 'mock',
    mode: (i % 3 === 0 ? 'rehearse' : 'real') as 'rehearse' | 'real',
    reward: (i % 5) / 4,
    success: i % 5 === 4,
    checklist: null,
    envCalls: i % 4,
    envWallMs: 3,
    tokens: 40,
    turns: [
      { role: 'prompt' as const, text: `Look up order #W${1000 + i} and cancel it if it is still pending. ${'Context sentence. '.repeat(20)}` },
      {
        role: 'act' as const,
        text: `<tool_call>{"name":"find_order","arguments":{"orderId":"#W${1000 + i}"}}</tool_call>`,
        tokenIds: Array.from({ length: 60 }, (_, k) => k + 10),
        logprobs: Array.from({ length: 60 }, (_, k) => -k / 30),
        advantages: Array.from({ length: 60 }, () => 0.5),
      },
      { role: (i % 3 === 0 ? 'rehearse' : 'env') as 'rehearse' | 'env', text: order },
    ],
  };
}

beforeAll(async () => {
  ensureRendererBuilt();
  fs.mkdirSync(shots, { recursive: true });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-e2e-layout-'));
  // The built-in registry: real tool schemas and descriptions are what the Environments view must fit.
  engine = createEngine({ home });
  api = inProcessClient(engine);
  server = await serve({ engine, staticDir });
  // A run with a real checkpoint (so Evaluate and Export show their forms), metrics, and many rollouts.
  ({ runId } = await seedCheckpointedRun(
    engine,
    { env: 'mock', name: 'layout check: a run with a long descriptive name', model: { preset: 'nano' } },
    ['create a task for the user', 'get_users'],
  ));
  rolloutIds = [];
  for (let step = 1; step <= 3; step += 1) {
    const count = step < 3 ? 29 : ROLLOUTS - 58;
    const rollouts = Array.from({ length: count }, (_, k) => rollout(step, (step - 1) * 29 + k));
    rolloutIds.push(
      ...engine.services.store.writeStep({ runId, step, metrics: { reward: step / 4, 'loss/policy': 1 / step, 'eval/success': step / 6 }, rollouts }),
    );
  }
  for (const name of ['second run', 'third run']) await api.call('runs.create', { config: { env: 'mock', name, model: { preset: 'tiny' } } });
  // The registry's first envs.list takes ~20 s here and runs in this process, where it would stall
  // Playwright mid-view (a screenshot timed out behind it); this test is about layout, so pay it now.
  await api.call('envs.list', {});
  browser = await launchChromium();
});

afterAll(async () => {
  if (report.length) console.log(`overflow checks:\n${report.join('\n')}`);
  await browser?.close();
  await server?.close();
  await engine?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe.each(SIZES)('web mode at $width×$height', (size) => {
  let page: Page;
  const tag = `layout-${size.width}x${size.height}`;

  beforeAll(async () => {
    const context = await browser.newContext({ viewport: size, colorScheme: 'light' });
    context.setDefaultTimeout(patience(30_000));
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(server.url);
  });

  afterAll(async () => {
    await page?.context().close();
  });

  const views: Array<{ view: string; hash: () => string; ready: (p: Page) => Promise<unknown> }> = [
    { view: 'runs', hash: () => '#/runs', ready: (p) => p.getByTestId('runs-table').waitFor() },
    { view: 'new-run', hash: () => '#/new', ready: (p) => p.locator('.knob').first().waitFor({ timeout: patience(90_000) }) },
    { view: 'dashboard', hash: () => `#/dashboard?run=${runId}`, ready: (p) => p.locator('[data-metric="reward"] canvas').waitFor() },
    { view: 'memory', hash: () => '#/memory', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
    { view: 'evaluate', hash: () => `#/evaluate?run=${runId}`, ready: (p) => p.getByRole('heading', { name: 'Results' }).waitFor() },
    { view: 'export', hash: () => `#/export?run=${runId}`, ready: (p) => p.getByTestId('export-run').waitFor() },
    { view: 'models', hash: () => '#/models', ready: (p) => p.getByTestId('gguf-import').waitFor() },
    { view: 'environments', hash: () => '#/envs?id=mock', ready: (p) => p.getByTestId('env-detail').waitFor({ timeout: patience(90_000) }) },
    { view: 'system', hash: () => '#/system', ready: (p) => p.getByRole('heading', { level: 1, name: 'System' }).waitFor() },
    { view: 'settings', hash: () => '#/settings', ready: (p) => p.getByTestId('settings-defaults').waitFor() },
  ];

  it.each(views)('$view fits the window width', async ({ view, hash, ready }) => {
    await page.evaluate(`window.location.hash = ${JSON.stringify(hash())}; window.scrollTo(0, 0)`);
    await ready(page);
    await settle(page);
    await shot(page, `${tag}-${view}`);
    await expectNoHorizontalOverflow(page, `${size.width}×${size.height} ${view}`);
  });

  it("keeps every run's actions on screen in the Runs table (they stick to its right edge)", async () => {
    await page.evaluate(`window.location.hash = '#/runs'; window.scrollTo(0, 0)`);
    await page.getByTestId('runs-table').waitFor();
    const buttons = page.getByTestId('runs-table').locator('tbody .actions-cell button');
    expect(await buttons.count()).toBeGreaterThanOrEqual(3);
    for (const box of await buttons.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as { left: number; right: number }))) {
      expect(box.left, `${size.width} px: an action starts off-screen`).toBeGreaterThanOrEqual(0);
      expect(box.right, `${size.width} px: an action ends off-screen`).toBeLessThanOrEqual(size.width);
    }
  });

  it('opens a rollout from deep in the list with its detail on screen, and fits the width', async () => {
    await page.evaluate(`window.location.hash = ${JSON.stringify(`#/trajectories?run=${runId}`)}; window.scrollTo(0, 0)`);
    const list = page.getByTestId('rollouts');
    await expect.poll(() => list.locator('li a').count()).toBe(ROLLOUTS);
    await expectNoHorizontalOverflow(page, `${size.width}×${size.height} trajectories (list)`);

    // The list is newest first; the 80th item is one a person reaches only by scrolling far down.
    const item = list.locator('li a').nth(79);
    const id = Number(/#(\d+)/.exec((await item.textContent()) ?? '')?.[1]);
    expect(rolloutIds).toContain(id);
    await item.click();
    const title = page.getByTestId('rollout-detail').locator('#rollout-title');
    await expect.poll(() => title.textContent()).toMatch(new RegExp(`^Rollout ${id} `));
    // Its heading, and the first turns under it, are inside the window after the click.
    const box = (await page.evaluate(
      `(() => { const r = document.getElementById('rollout-title').getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: window.innerHeight }; })()`,
    )) as {
      top: number;
      bottom: number;
      height: number;
    };
    report.push(
      `${size.width}×${size.height} trajectories: rollout ${id}'s title at ${Math.round(box.top)}..${Math.round(box.bottom)} px of a ${box.height} px window`,
    );
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(box.height);
    await shot(page, `${tag}-trajectories-opened`, false);
    await expectNoHorizontalOverflow(page, `${size.width}×${size.height} trajectories (opened)`);

    // The token view of a long act turn wraps inside the detail too.
    await page.getByTestId('rollout-detail').getByLabel('tokens by log-prob').check();
    await expectNoHorizontalOverflow(page, `${size.width}×${size.height} trajectories (token heat)`);
    await shot(page, `${tag}-trajectories-tokens`);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});

describe('the model card of an exported run', () => {
  it('carries the held-out evaluation stored for that checkpoint', async () => {
    const [checkpoint] = (await api.call('runs.get', { id: runId })).checkpoints;
    engine.services.store.evaluations.insert({
      runId,
      step: checkpoint!.step,
      env: 'mock',
      split: 'heldout',
      rehearsals: 0,
      mode: 'parallel',
      tasks: 8,
      success: 0.375,
      meanScore: 0.5,
      invalidActionRate: 0,
      envCallsPerTask: 2,
      tokensPerTask: 30,
      wallMs: 10,
      fidelity: null,
      perTask: [],
      commit: 'prompt',
    });
    const record = await api.call('exports.create', { source: { run: runId }, format: 'hf' });
    const card = fs.readFileSync(path.join(record.outDir, 'README.md'), 'utf8');
    expect(card).toContain('## Held-out evaluation');
    expect(card).toMatch(/\| heldout \| 0 \| 8 \| 37\.5 % \| 0\.500 \|/);
  });
});

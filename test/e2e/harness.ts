import { spawnSync } from 'node:child_process';
import { patience } from '../helpers/patience';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { EnvDetail, WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import type { EnvCatalog } from '../../electron/engine/system/services';
import { serve, type RunningServer } from '../../electron/server';

/** What the web-mode e2e needs besides the app: the built renderer, Chromium, a fixed environment. */

const root = path.resolve(import.meta.dirname, '../..');
export const staticDir = path.join(root, 'out/renderer');
/** Screenshots are kept as test artefacts (workbench.md). */
export const shots = path.join(root, 'test-output/e2e');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Build when the bundle is missing or older than the renderer sources (~1 s with Vite), so the test never drives a stale page. */
export function ensureRendererBuilt(): void {
  const index = path.join(staticDir, 'index.html');
  const sources = () => Math.max(newestMtime(path.join(root, 'renderer/src')), fs.statSync(path.join(root, 'renderer/index.html')).mtimeMs);
  const fresh = () => fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources();
  if (fresh()) return;
  // Test files run in parallel workers: one builds, the others wait for it (a build empties out/renderer first).
  fs.mkdirSync(path.dirname(staticDir), { recursive: true });
  const lock = path.join(path.dirname(staticDir), '.renderer-build.lock');
  let fd: number | null = null;
  const deadline = Date.now() + 120_000;
  while (fd === null) {
    try {
      fd = fs.openSync(lock, 'wx');
    } catch {
      if (Date.now() > deadline) throw new Error(`waited 120 s for ${lock}; remove it if no build is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (fresh()) return;
    const built = spawnSync('npx', ['vite', 'build', '--config', 'renderer/vite.config.ts'], { cwd: root, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`renderer build failed:\n${built.stdout}\n${built.stderr}`);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(lock, { force: true });
  }
}

/** Debian's Chromium, headless, with nothing that reaches the network on its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

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

/** One environment with fixed counts and answers, so the assertions can name them. */
export const fixtureCatalog: EnvCatalog = {
  ids: () => [fixtureEnv.id],
  list: async () => [{ id: fixtureEnv.id, description: fixtureEnv.description, track: fixtureEnv.track, toolCount: fixtureEnv.toolCount, taskCounts: fixtureEnv.taskCounts }],
  get: async (id) => (id === fixtureEnv.id ? fixtureEnv : null),
  tasks: async (id, split) => {
    if (id !== fixtureEnv.id) return null;
    const splits = split ? [split] : (['train', 'heldout', 'ood'] as const);
    return splits.flatMap((s) => Array.from({ length: fixtureEnv.taskCounts[s] }, (_, i) => ({ id: `${s}-${i}`, split: s, instruction: `Fixture task ${i} (${s})` })));
  },
  call: async (id, tool, args) => {
    if (id !== fixtureEnv.id) return null;
    if (tool === 'find_order' && args.orderId === '#W12') return { observation: '{"orderId":"#W12","status":"pending"}', ok: true, wallMs: 0.2 };
    return { observation: `Error: no order ${String(args.orderId)}`, ok: false, wallMs: 0.1 };
  },
};

export interface OpenWorkbench {
  home: string;
  engine: Engine;
  api: WorkbenchApi;
  server: RunningServer;
  browser: Browser;
  page: Page;
  /** Uncaught errors in the page; a flow should end with none. */
  pageErrors: string[];
  close(): Promise<void>;
}

/**
 * The usual e2e setup: a real engine on a fresh data home, web mode serving the built renderer,
 * and one Chromium page (light theme) collecting page errors.
 */
export async function openWorkbench(prefix: string): Promise<OpenWorkbench> {
  ensureRendererBuilt();
  fs.mkdirSync(shots, { recursive: true });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const engine = createEngine({ home });
  const server = await serve({ engine, staticDir });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, colorScheme: 'light' });
  // Playwright's 30 s per action and wait, stretched on a loaded machine like every other limit.
  context.setDefaultTimeout(patience(30_000));
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(process.env.E2E_STACKS ? `${error.message}\n${error.stack}` : error.message));
  return {
    home,
    engine,
    api: inProcessClient(engine),
    server,
    browser,
    page,
    pageErrors,
    async close() {
      await browser.close();
      await server.close();
      await engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../electron/contract';
import type { Engine } from '../../electron/engine/host';
import type { RunningServer } from '../../electron/server';
import { seedCheckpointedRun } from '../helpers/checkpoint';
import { openWorkbench, shots, type OpenWorkbench } from './harness';
import { patience } from '../helpers/patience';

/**
 * Web mode over the engine as shipped: export a real checkpoint as a Hugging Face folder, and
 * add the real MCP filesystem server as an environment, then call one of its tools by hand.
 */

let wb: OpenWorkbench;
let home: string;
let engine: Engine;
let api: WorkbenchApi;
let server: RunningServer;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  wb = await openWorkbench('envace-e2e-export-');
  ({ home, engine, api, server, page, pageErrors } = wb);
});

afterAll(async () => {
  await wb?.close();
});

describe('Export view', () => {
  it('exports a checkpoint as a Hugging Face folder and shows every file written, with sizes and the load snippet', async () => {
    const { runId, step } = await seedCheckpointedRun(engine, { env: 'mock', name: 'export source', model: { preset: 'nano' } }, ['create a task for the user', 'get_users']);
    await page.goto(`${server.url}#/export`);
    await expect.poll(() => page.getByTestId('export-run').inputValue()).toBe(runId);
    expect(await page.getByTestId('export-step').locator('option').allTextContents()).toEqual([`latest (step ${step})`, `step ${step}`]);

    // A name that would leave the exports folder is refused before anything is sent.
    await page.getByTestId('export-folder-name').fill('../runs');
    await page.getByTestId('export-form').getByRole('alert').waitFor();
    expect(await page.getByTestId('export-submit').isDisabled()).toBe(true);

    await page.getByTestId('export-folder-name').fill('e2e-hf');
    await page.getByLabel('Hugging Face folder').check();
    await page.getByTestId('export-submit').click();
    const result = page.getByTestId('export-result').first();
    await result.waitFor({ timeout: patience(60_000) });

    const outDir = path.join(home, 'exports', 'e2e-hf');
    expect(await result.getByTestId('export-folder').textContent()).toBe(outDir);
    const [record] = (await api.call('exports.list', {})).items;
    expect(record).toMatchObject({ runId, step, format: 'hf', outDir });
    // What the page lists is what is on disk, byte for byte.
    const rows = result.locator('tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-file')))).toEqual(record!.files.map((f) => f.name));
    for (const file of record!.files) expect(fs.statSync(path.join(outDir, file.name)).size).toBe(file.bytes);
    expect(record!.files.map((f) => f.name)).toContain('config.json');
    for (const size of await rows.locator('td.numeric').allTextContents()) expect(size).toMatch(/^\d+(\.\d+)? (B|KiB|MiB|GiB)$/);
    expect(await result.getByTestId('load-snippet').textContent()).toBe(record!.loadSnippet);
    expect(record!.loadSnippet).toContain(outDir);
    await expect.poll(() => page.getByTestId('export-list').locator('li').count()).toBe(1);
    await page.screenshot({ path: path.join(shots, 'export-hf.png'), fullPage: true });

    // The same folder again without "replace" is refused, in the engine's words, and nothing is added.
    await page.getByTestId('export-submit').click();
    const refusal = page.getByTestId('export-form').locator('.notice-error');
    await refusal.waitFor({ timeout: patience(30_000) });
    expect(await refusal.textContent()).toContain('Not possible right now');
    expect((await api.call('exports.list', {})).items).toHaveLength(1);
  });

  it('exports an imported model as GGUF with the chosen weight type', async () => {
    // The Hugging Face folder written above, imported as a model (it sits in the data home).
    const [hf] = (await api.call('exports.list', {})).items;
    await api.call('models.import', { hfDir: hf!.outDir, name: 'e2e-nano' });
    await page.goto(`${server.url}#/export`);
    await page.getByLabel('an imported model').check();
    await expect.poll(() => page.getByTestId('export-model').inputValue()).toBe('e2e-nano');
    await page.getByLabel('GGUF').check();
    await page.getByTestId('gguf-dtype').selectOption('f32');
    await page.getByTestId('export-folder-name').fill('e2e-gguf');
    await page.getByTestId('export-submit').click();
    const result = page.getByTestId('export-result').first();
    await result.waitFor({ timeout: patience(60_000) });

    const [record] = (await api.call('exports.list', {})).items;
    expect(record).toMatchObject({ model: 'e2e-nano', runId: null, format: 'gguf', outDir: path.join(home, 'exports', 'e2e-gguf') });
    const gguf = record!.files.find((f) => f.name.endsWith('.gguf'))!;
    expect(gguf.name).toContain('f32');
    expect(fs.statSync(path.join(record!.outDir, gguf.name)).size).toBe(gguf.bytes);
    expect(await result.locator(`tr[data-file="${gguf.name}"]`).count()).toBe(1);
    expect(await page.getByTestId('export-list').locator('li').count()).toBe(2);
    await page.screenshot({ path: path.join(shots, 'export-gguf.png'), fullPage: true });
  });
});

describe('New run from an imported model', () => {
  it('picks the imported model from a list, pre-flights it and trains it to completion', { timeout: patience(120_000) }, async () => {
    // e2e-nano was imported by the export test above.
    await page.goto(`${server.url}#/new`);
    // The env list arrives after the first paint; the field is a free-text input until then.
    await page.locator('select[data-path="env"]').selectOption('mock');
    await page.locator('[data-path="model"]').selectOption('imported');
    const picker = page.getByLabel('Imported model name');
    await expect.poll(() => picker.locator('option:not([disabled])').allTextContents()).toEqual(['e2e-nano']);
    await picker.selectOption('e2e-nano');
    // The form starts from the imported-model recipe (LoRA, an SFT warm start); this run changes it, with every knob shown.
    await expect.poll(() => page.getByTestId('recipe-banner').textContent()).toMatch(/^Recipe mock\/imported/);
    await page.getByTestId('advanced-toggle').click();
    // EnvACE with short turns: nano's 256-token context holds mock's prompt without tool schemas.
    await page.locator('[data-path="algo"]').selectOption('envace');
    await page.locator('[data-path="sft.steps"]').fill('0');
    await page.locator('[data-path="lora.rank"]').fill('0');
    await page.locator('[data-path="evalEvery"]').fill('0');
    await page.locator('[data-path="steps"]').fill('2');
    await page.locator('[data-path="rollout.toolSchemas"]').selectOption('none');
    await page.locator('[data-path="rollout.k"]').fill('2');
    await page.locator('[data-path="rollout.tasksPerStep"]').fill('1');
    await page.locator('[data-path="rollout.maxTurns"]').fill('2');
    await page.locator('[data-path="rollout.maxTokensPerTurn"]').fill('24');
    await page.locator('[data-path="rollout.maxObservationTokens"]').fill('24');
    await page.locator('[data-path="name"]').fill('from an imported model');
    await page.getByTestId('preflight-check').click();
    const preflight = page.getByTestId('preflight');
    await preflight.waitFor();
    expect(await preflight.locator('li[data-ok="false"]').allTextContents()).toEqual([]);
    expect(await preflight.locator('li', { hasText: /^. tokenizer/ }).textContent()).toMatch(/e2e-nano's own tokenizer/);
    await page.getByTestId('create-run').click();
    // Started at once, so the form opens the run's dashboard.
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/dashboard\?run=/);
    const run = (await api.call('runs.list', { search: 'from an imported model' })).items[0]!;
    expect(new URL(page.url()).hash).toBe(`#/dashboard?run=${run.id}`);
    expect(run.config.model).toEqual({ imported: 'e2e-nano' });
    await expect.poll(async () => (await api.call('runs.get', { id: run.id })).status, { timeout: patience(100_000) }).toMatch(/completed|failed|cancelled/);
    expect(await api.call('runs.get', { id: run.id })).toMatchObject({ status: 'completed', error: null, currentStep: 2 });
  });
});

describe('Environments: add an MCP server', () => {
  it('adds the real filesystem server with a task file, shows refusals in place, then calls its tool from the console', async () => {
    const sandbox = path.join(home, 'sandbox');
    fs.mkdirSync(sandbox, { recursive: true });
    fs.writeFileSync(path.join(sandbox, 'notes.txt'), 'rehearse before acting');
    const taskFile = path.join(home, 'fs-tasks.jsonl');
    const task = { id: 'read-notes', instruction: 'What do the notes say?', split: 'train', checklist: [{ kind: 'call', weight: 1, name: 'read_text_file', arguments: { path: path.join(sandbox, 'notes.txt') } }] };
    fs.writeFileSync(taskFile, `${JSON.stringify(task)}\n`);
    const serverScript = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');

    await page.goto(`${server.url}#/envs`);
    await page.getByTestId('add-mcp').click();
    const form = page.getByTestId('add-mcp-form');
    await form.waitFor();

    // Empty form: each required field says what it needs, nothing is sent.
    await form.getByTestId('mcp-submit').click();
    await expect.poll(() => form.locator('.knob-issue').count()).toBeGreaterThanOrEqual(3);

    await form.getByTestId('mcp-id').fill('fs-mcp');
    await form.getByTestId('mcp-description').fill('The MCP filesystem server over a sandbox');
    await form.getByTestId('mcp-command').fill(`node "${serverScript}" "${sandbox}"`);
    // A task file outside the data home is refused by the engine; its words appear under the field.
    const outside = path.join(os.tmpdir(), 'outside-tasks.jsonl');
    await form.getByTestId('mcp-task-file').fill(outside);
    await form.getByTestId('mcp-submit').click();
    const taskIssue = form.getByTestId('mcp-task-file').locator('xpath=ancestor::div[@class="mcp-field"]').locator('.knob-issue');
    await expect.poll(() => taskIssue.textContent(), { timeout: patience(30_000) }).toContain(`must be inside ${home}`);
    await page.screenshot({ path: path.join(shots, 'environments-add-mcp-refused.png'), fullPage: true });

    await form.getByTestId('mcp-task-file').fill(taskFile);
    await form.getByTestId('mcp-submit').click();
    await expect.poll(() => new URL(page.url()).hash, { timeout: patience(60_000) }).toBe('#/envs?id=fs-mcp');
    const detail = page.getByTestId('env-detail');
    await detail.waitFor();
    const env = await api.call('envs.get', { id: 'fs-mcp' });
    expect(env).toMatchObject({ track: 'mcp', taskCounts: { train: 1, heldout: 0, ood: 0 } });
    expect(await detail.locator('details.tool code').allTextContents()).toEqual(env.tools.map((t) => t.name));
    await expect.poll(() => page.getByTestId('envs-list').locator('li').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('fs-mcp')]));

    const toolConsole = page.getByTestId('tool-console');
    await toolConsole.getByTestId('console-tool').selectOption('read_text_file');
    await toolConsole.getByTestId('console-args').fill(JSON.stringify({ path: path.join(sandbox, 'notes.txt') }));
    await toolConsole.getByTestId('console-call').click();
    await toolConsole.getByTestId('console-result').waitFor({ timeout: patience(30_000) });
    expect(await toolConsole.getByTestId('console-result').getAttribute('data-ok')).toBe('true');
    expect(await toolConsole.locator('.console-result pre').textContent()).toContain('rehearse before acting');
    await page.screenshot({ path: path.join(shots, 'environments-mcp.png'), fullPage: true });

    // The same id again is refused at the id field.
    await page.getByTestId('add-mcp').click();
    await form.getByTestId('mcp-id').fill('fs-mcp');
    await form.getByTestId('mcp-command').fill(`node "${serverScript}" "${sandbox}"`);
    await form.getByTestId('mcp-task-file').fill(taskFile);
    await form.getByTestId('mcp-submit').click();
    const idIssue = form.getByTestId('mcp-id').locator('xpath=ancestor::div[@class="mcp-field"]').locator('.knob-issue');
    await expect.poll(() => idIssue.textContent(), { timeout: patience(30_000) }).toContain('already exists');
    expect(pageErrors).toEqual([]);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../electron/contract';
import type { Engine } from '../../electron/engine/host';
import type { RunningServer } from '../../electron/server';
import { formatPercent } from '../../renderer/src/format/units';
import { formatPoints } from '../../renderer/src/views/evaluate/eval-table';
import { seedCheckpointedRun } from '../helpers/checkpoint';
import { openWorkbench, shots, type OpenWorkbench } from './harness';
import { patience } from '../helpers/patience';

/**
 * Web mode with a real policy checkpoint (random weights, a real tokenizer) on the built-in mock
 * domain: reality-check a rehearsed rollout, rehearse a task privately, edit the memory and commit
 * a real run with the edit, and evaluate with and without test-time rehearsal.
 */

let wb: OpenWorkbench;
let engine: Engine;
let api: WorkbenchApi;
let server: RunningServer;
let page: Page;
let runId: string;
let pageErrors: string[] = [];
const TASK = 'create_task_1';

beforeAll(async () => {
  wb = await openWorkbench('envace-e2e-rehearsal-');
  ({ engine, api, server, page, pageErrors } = wb);
  const rollout = { maxTurns: 2, maxTokensPerTurn: 12, maxObservationTokens: 24, k: 2, toolSchemas: 'none' as const };
  ({ runId } = await seedCheckpointedRun(engine, { env: 'mock', name: 'rehearsal policy', model: { preset: 'nano' }, rollout }, ['create a task for the user', 'get_users', 'update_task_status']));
});

afterAll(async () => {
  await wb?.close();
});

describe('rehearsal in web mode', () => {
  it('reality-checks a rehearsed rollout: the real observation appears beside the imagined one, with the fidelity figures', async () => {
    // What a policy imagined get_users would answer; the real mock domain answers with its own users.
    const id = engine.services.store.rollouts.insert({
      runId, step: 1, taskId: TASK, env: 'mock', mode: 'rehearse', reward: 0, success: false, checklist: null, envCalls: 0, envWallMs: 0, tokens: 9, memoryId: null,
      turns: [
        { role: 'prompt', text: 'Create a task for user_1' },
        { role: 'act', text: '<tool_call>{"name": "get_users", "arguments": {}}</tool_call>' },
        { role: 'rehearse', text: '[{"user_id": "u-imagined", "name": "Nobody"}]' },
        { role: 'act', text: '<answer>done</answer>' },
      ],
    });
    await page.goto(`${server.url}#/trajectories?run=${runId}&rollout=${id}`);
    const detail = page.getByTestId('rollout-detail');
    await detail.waitFor();
    expect(await detail.getByTestId('reality-diff').count()).toBe(0);
    await detail.getByTestId('reality-check').click();
    const summary = detail.getByTestId('reality-summary');
    await summary.waitFor({ timeout: patience(30_000) });

    const stored = await api.call('trajectories.get', { id });
    const checked = stored.turns.find((t) => t.role === 'rehearse')!;
    expect(checked.realText).toContain('user_');
    const diff = detail.getByTestId('reality-diff');
    const [imagined, real] = await diff.locator('.grid-2 > div pre').allTextContents();
    expect(imagined).toContain('u-imagined');
    expect(real).not.toContain('u-imagined');
    expect(real).toContain(String((JSON.parse(checked.realText!) as Array<{ user_id: string }>)[0]!.user_id));
    expect(await summary.locator('dd').first().textContent()).toBe('1');
    expect(await summary.locator('dd').nth(1).textContent()).toBe(formatPercent(checked.fidelity!.exact ? 1 : 0));
    expect(await summary.locator('dd').nth(2).textContent()).toBe(formatPercent(checked.fidelity!.similarity));
    await page.screenshot({ path: path.join(shots, 'reality-check.png'), fullPage: true });
  });

  it('rehearses a task privately, shows each imagined trajectory, saves an edit and commits a real run with it', async () => {
    await page.goto(`${server.url}#/memory`);
    const form = page.getByTestId('rehearse-form');
    await expect.poll(() => form.getByTestId('rehearse-run').inputValue()).toBe(runId);
    await form.getByTestId('rehearse-task').fill(TASK);
    await form.getByTestId('rehearse-count').fill('2');
    await form.getByLabel('sequential').check();
    await form.getByTestId('rehearse-submit').click();
    await expect.poll(() => new URL(page.url()).hash, { timeout: patience(60_000) }).toMatch(/^#\/memory\?id=\d+$/);
    const memoryId = Number(new URL(page.url()).hash.split('=')[1]);
    const built = await api.call('memories.get', { id: memoryId });
    expect(built).toMatchObject({ taskId: TASK, runId, source: 'rehearsal', version: 1 });
    expect(built.structured.rehearsals).toHaveLength(2);

    // Each private rehearsal opens as a rollout with no real env call.
    const rehearsals = page.getByTestId('memory-rehearsals');
    await expect.poll(() => rehearsals.getByRole('tab').count()).toBe(2);
    const stored = (await api.call('trajectories.list', { runId, taskId: TASK, mode: 'test-time' })).items.filter((r) => r.memoryId === memoryId).sort((a, b) => a.id - b.id);
    expect(stored).toHaveLength(2);
    await rehearsals.getByRole('tab', { name: 'rehearsal 2' }).click();
    await expect.poll(() => rehearsals.locator('#rollout-title').textContent()).toContain(`Rollout ${stored[1]!.id}`);
    expect(await rehearsals.getByTestId('rollout-detail').locator('.muted').first().textContent()).toContain('0 env calls');

    // Edit the text the policy sees, save it as version 2.
    // Short: the nano model's 256-token context keeps only the tail of a long memory.
    const edit = 'Plan: get_users, then create.';
    await page.getByLabel('Memory text').fill(edit);
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await expect.poll(() => new URL(page.url()).hash).not.toBe(`#/memory?id=${memoryId}`);
    const editedId = Number(new URL(page.url()).hash.split('=')[1]);
    const versions = page.getByTestId('memory-versions');
    await expect.poll(() => versions.locator('li').count()).toBe(2);
    expect(await versions.locator('li[aria-current="true"]').textContent()).toContain('v2');
    expect(await versions.locator('li[aria-current="true"]').textContent()).toContain('edited from v1');

    // Commit a real run with the edit: the outcome names v2 and its rollout carries the edited memory.
    await page.getByTestId('commit-submit').click();
    const outcome = page.getByTestId('commit-outcome');
    await outcome.waitFor({ timeout: patience(60_000) });
    expect(await outcome.textContent()).toContain('Committed with v2');
    const commitRow = page.getByTestId('memory-commit-list').locator('tbody tr');
    await expect.poll(() => commitRow.count()).toBe(1);
    expect(await commitRow.locator('td').nth(1).textContent()).toBe('v2');
    const committedId = Number(await commitRow.getAttribute('data-rollout-id'));
    expect((await api.call('trajectories.get', { id: committedId })).memoryId).toBe(editedId);
    await page.screenshot({ path: path.join(shots, 'memory-commit.png'), fullPage: true });

    await outcome.getByRole('link').click();
    const detail = page.getByTestId('rollout-detail');
    await detail.waitFor();
    expect(await detail.locator('.turn-memory .turn-text').first().textContent()).toContain(edit);
    expect(await detail.getByRole('link', { name: `memory #${editedId}` }).count()).toBe(1);

    // A memory longer than the context leaves room for is committed with its end only, and the page says so.
    await page.goto(`${server.url}#/memory?id=${editedId}`);
    expect(await page.getByTestId('commit-memory-cut').count()).toBe(0);
    await page.getByLabel('Memory text').fill(`${'Check every user before acting. '.repeat(60)}${edit}`);
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await expect.poll(() => new URL(page.url()).hash).not.toBe(`#/memory?id=${editedId}`);
    await page.getByTestId('commit-submit').click();
    const cut = page.getByTestId('commit-memory-cut');
    await cut.waitFor({ timeout: patience(60_000) });
    const [, total, kept] = (await cut.textContent())!.match(/The memory is (\d+) tokens; the model's context left room for the last (\d+)/)!;
    expect(Number(kept)).toBeLessThan(Number(total));
  });

  it('evaluates without and with test-time rehearsal and shows the figures side by side', async () => {
    // A second checkpoint (the same weights), so success can be drawn along training.
    const store = engine.services.store;
    const first = store.runs.checkpointPath(runId, 1)!;
    const second = path.join(path.dirname(first), 'step-2');
    fs.cpSync(first, second, { recursive: true });
    store.runs.addCheckpoint(runId, 2, second);

    await page.goto(`${server.url}#/evaluate?run=${runId}`);
    const form = page.getByTestId('eval-form');
    await form.getByTestId('eval-limit').fill('2');
    await form.getByTestId('eval-submit').click();
    const rows = page.getByTestId('eval-table').locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: patience(60_000) }).toBe(1);
    await form.getByTestId('eval-rehearsals').fill('1');
    await form.getByTestId('eval-submit').click();
    await expect.poll(() => rows.count(), { timeout: patience(60_000) }).toBe(2);
    // Until a setting has two checkpoints there is no line to draw.
    expect(await page.locator('[data-metric="eval-success"]').count()).toBe(0);

    const [rehearsed, plain] = (await api.call('evals.list', { runId })).items;
    expect(plain).toMatchObject({ rehearsals: 0, tasks: 2, split: 'heldout' });
    expect(rehearsed).toMatchObject({ rehearsals: 1, tasks: 2 });
    const row = (id: number) => page.locator(`tr[data-eval-id="${id}"]`);
    expect(await row(plain!.id).locator('[data-col="success"]').textContent()).toBe(formatPercent(plain!.success));
    expect(await row(rehearsed!.id).locator('[data-col="score"]').textContent()).toBe(formatPercent(rehearsed!.meanScore));
    expect(await row(rehearsed!.id).locator('td').nth(3).textContent()).toBe(formatPoints(rehearsed!.success - plain!.success));
    expect(await row(rehearsed!.id).locator('td').nth(1).textContent()).toBe('held-out · 1 parallel rehearsal, memory in the prompt');

    // The same evaluation at step 1: the chart draws success by checkpoint, rehearsal and none as separate lines.
    await form.getByTestId('eval-rehearsals').fill('0');
    await form.getByLabel('Checkpoint').selectOption('1');
    await form.getByTestId('eval-submit').click();
    await expect.poll(() => rows.count(), { timeout: patience(60_000) }).toBe(3);
    const chart = page.locator('[data-metric="eval-success"] .line-chart');
    await expect.poll(() => chart.getAttribute('aria-label')).toBe('success by step, held-out · 1 parallel rehearsal, memory in the prompt: 1 points; held-out · no rehearsal: 2 points');
    await page.screenshot({ path: path.join(shots, 'evaluate.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});

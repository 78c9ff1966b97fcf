import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ContractError, createClient, methodNames, type MethodName, type Transport, type WorkbenchApi } from '../../electron/contract';
import type { Engine } from '../../electron/engine/host';
import { inProcessTransport } from '../../electron/engine/in-process';
import { EngineLink, type FromEngine, type ToEngine } from '../../electron/main/engine-link';
import { handleInvoke } from '../../electron/main/ipc-router';
import { buildBridge, type IpcLike } from '../../electron/preload/bridge';
import { serve, type RunningServer } from '../../electron/server';
import { createIpcTransport } from '../../renderer/src/api/ipc-transport';
import { createWebSocketTransport } from '../../renderer/src/api/websocket-transport';
import { detectGpu } from '../../electron/engine/system/gpu-setup';
import { exportModel, importModel } from '../../electron/engine/models';
import { seedCheckpointedRun } from '../helpers/checkpoint';
import { type HubServer, repoFromFolder, startHubServer } from '../helpers/hub-server';
import { testEngine } from '../helpers/engine';
import { nanoConfig, randomWeights, smallTokenizer } from '../unit/engine/models/fixtures';

/**
 * The desktop path without the Electron binary: preload bridge → IPC router (sender check) →
 * engine link → engine, with every hop through structuredClone as Electron's IPC would.
 */
function ipcShapedTransport(engine: Engine): Transport {
  const clone = <T>(v: T): T => structuredClone(v);
  const link = new EngineLink((message: ToEngine) => {
    const copy = clone(message);
    queueMicrotask(async () => {
      const result = await engine.dispatch(copy.method, copy.input, { transport: 'ipc' });
      link.receive(clone({ type: 'response', id: copy.id, result } satisfies FromEngine), () => {});
    });
  });
  const listeners = new Set<(event: unknown, ...args: unknown[]) => void>();
  engine.subscribe((event, payload) => listeners.forEach((l) => l({}, event, clone(payload))));
  const ipc: IpcLike = {
    invoke: async (_channel, method, input) =>
      clone(await handleInvoke({ senderFrame: { url: 'app://workbench/index.html', parent: null } as never }, clone(method), clone(input), (m, i) => link.request(m, i))),
    on: (_channel, listener) => listeners.add(listener),
    removeListener: (_channel, listener) => listeners.delete(listener),
  };
  return createIpcTransport(buildBridge(ipc));
}

/** Wait until a run's job has finished, whatever the outcome. */
async function settled(api: WorkbenchApi, id: string) {
  for (let i = 0; i < 600; i++) {
    const run = await api.call('runs.get', { id });
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${id} did not settle`);
}

let env: ReturnType<typeof testEngine>;
let server: RunningServer;
let hub: HubServer;
const savedEndpoint = process.env.HF_ENDPOINT;
let ws: ReturnType<typeof createWebSocketTransport>;
const transports: Array<[string, () => WorkbenchApi]> = [];
let fixtures: { policyRun: string; runId: string; rolloutId: number; rehearsedId: number; memoryId: number; hfDir: string; ggufFile: string; vocabSize: number; fsServer: string; sandbox: string; taskFile: string; goldTaskFile: string };

beforeAll(async () => {
  env = testEngine();
  server = await serve({ engine: env.engine, staticDir: 'out/renderer', token: 'test-token-123' });
  ws = createWebSocketTransport(() => new WebSocket(`ws://127.0.0.1:${server.port}/api?token=test-token-123`) as never, { reconnectMs: 50 });
  transports.push(['ipc', () => createClient(ipcShapedTransport(env.engine))], ['websocket', () => createClient(ws)], ['in-process', () => createClient(inProcessTransport(env.engine))]);

  // Seed one of everything the read methods need, through the engine's own store.
  const api = createClient(inProcessTransport(env.engine));
  const run = await api.call('runs.create', { config: { env: 'contract-test', steps: 3 } });
  const store = env.engine.services.store;
  const [rolloutId] = store.writeStep({
    runId: run.id,
    step: 1,
    metrics: { reward: 0.5, 'loss/policy': 1.25 },
    rollouts: [
      {
        runId: run.id,
        step: 1,
        taskId: 't1',
        env: 'contract-test',
        mode: 'rehearse',
        reward: 1,
        success: true,
        checklist: { score: 1, formatError: false, items: [{ index: 0, kind: 'answer', description: 'answer is 4', weight: 1, passed: true }] },
        envCalls: 0,
        envWallMs: 0,
        tokens: 7,
        turns: [
          { role: 'prompt', text: 'what is 2+2', tokenIds: [1, 2, 3] },
          { role: 'act', text: '<answer>4</answer>', tokenIds: [4, 5], logprobs: [-0.5, -0.25] },
        ],
      },
    ],
  });
  // A rehearsed rollout in the real mock domain: the act is a real tool call, the observation imagined.
  const rehearsedId = store.rollouts.insert({
    runId: null, step: null, taskId: 'create_task_1', env: 'mock', mode: 'rehearse', reward: 0, success: false, checklist: null, envCalls: 0, envWallMs: 0, tokens: 9,
    turns: [
      { role: 'prompt', text: 'Create a task for user_1' },
      { role: 'act', text: '<tool_call>{"name": "get_users", "arguments": {}}</tool_call>' },
      { role: 'rehearse', text: '[{"user_id": "u-imagined", "name": "Nobody"}]' },
      { role: 'act', text: '<answer>done</answer>' },
    ],
  });
  store.runs.addCheckpoint(run.id, 1, path.join(env.home, 'runs', run.id, 'checkpoints', 'step-1'));
  store.logs.append(run.id, { level: 'warn', message: 'seeded line', time: 1000 });
  const memory = store.memories.insert({
    env: 'contract-test',
    taskId: 't1',
    runId: run.id,
    structured: { rehearsals: [], consensus: { plan: [{ name: 'echo', arguments: { text: 'hi' } }], answer: '4' }, notes: '' },
    text: 'consensus: echo',
  });
  // A real Hugging Face folder (written by our exporter) to import, inside the data home.
  const hfDir = path.join(env.home, 'inbox', 'tiny-llama');
  const tokenizer = smallTokenizer();
  const config = nanoConfig({ vocabSize: tokenizer.vocabSize });
  await exportModel({ config, weights: randomWeights(config), tokenizer, format: 'hf', outDir: hfDir });
  await importModel({ hfDir, name: 'tiny-llama', modelsDir: env.engine.services.paths.models });
  // The same shape with room for a retail/mock prompt and its tools: evals.model runs it under the mock recipe.
  const longDir = path.join(env.home, 'inbox', 'tiny-llama-1k');
  const longConfig = nanoConfig({ vocabSize: tokenizer.vocabSize, maxSeqLen: 1024 });
  await exportModel({ config: longConfig, weights: randomWeights(longConfig), tokenizer, format: 'hf', outDir: longDir });
  await importModel({ hfDir: longDir, name: 'tiny-llama-1k', modelsDir: env.engine.services.paths.models });
  // The same model as a GGUF file (our exporter writes llama.cpp's layout), also inside the data home.
  const ggufDir = path.join(env.home, 'inbox', 'tiny-llama-gguf');
  await exportModel({ config, weights: randomWeights(config), tokenizer, format: 'gguf', ggufDtype: 'f32', outDir: ggufDir });
  const ggufFile = path.join(ggufDir, 'model-f32.gguf');
  // The same folder served as a Hub repo (sharded) by a local Hub-shaped server the engine reaches through HF_ENDPOINT.
  hub = await startHubServer({ 'tiny/llama': repoFromFolder(hfDir, 'd'.repeat(40)) });
  process.env.HF_ENDPOINT = hub.url;
  const sandbox = path.join(env.home, 'sandbox');
  fs.mkdirSync(sandbox, { recursive: true });
  fs.writeFileSync(path.join(sandbox, 'hello.txt'), 'hello from the sandbox');
  const taskFile = path.join(env.home, 'fs-tasks.jsonl');
  const task = { id: 'read-hello', instruction: 'What does hello.txt say?', checklist: [{ kind: 'call', weight: 1, name: 'read_text_file', arguments: { path: path.join(sandbox, 'hello.txt') } }] };
  fs.writeFileSync(taskFile, `${JSON.stringify(task)}\n`);
  const goldTaskFile = path.join(env.home, 'fs-gold-tasks.jsonl');
  fs.writeFileSync(goldTaskFile, `${JSON.stringify({ ...task, gold: { calls: [{ name: 'read_text_file', arguments: { path: path.join(sandbox, 'hello.txt') } }] } })}\n`);
  const fsServer = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
  const rollout = { maxTurns: 2, maxTokensPerTurn: 12, maxObservationTokens: 24, k: 2, toolSchemas: 'none' as const };
  const { runId: policyRun } = await seedCheckpointedRun(env.engine, { env: 'mock', model: { preset: 'nano' }, rollout }, ['create a task for the user', 'get_users', 'update_task_status']);
  fixtures = { policyRun, runId: run.id, rolloutId, rehearsedId, memoryId: memory.id, hfDir, ggufFile, vocabSize: config.vocabSize, fsServer, sandbox, taskFile, goldTaskFile };
});

afterAll(async () => {
  ws?.close();
  await server?.close();
  await hub?.close();
  if (savedEndpoint === undefined) delete process.env.HF_ENDPOINT;
  else process.env.HF_ENDPOINT = savedEndpoint;
  await env?.cleanup();
});

/** A valid call for every method and what its answer must show; a new method without a case fails the suite. */
const cases: { [M in MethodName]: (api: WorkbenchApi) => Promise<void> } = {
  'system.info': async (api) => {
    const info = await api.call('system.info');
    expect(info.providers.find((p) => p.name === 'cpu')?.available).toBe(true);
    expect(info.cpuCount).toBeGreaterThan(0);
  },
  'system.gpuSetup': async (api) => {
    // A check never starts the installer, so this case is safe on a machine with a GPU too.
    const answer = api.call('system.gpuSetup', { action: 'check' });
    if (detectGpu().ok) expect(await answer).toMatchObject({ status: 'dry_run', exitCode: null, output: [] });
    else await expect(answer).rejects.toMatchObject({ code: 'not_available', message: expect.stringMatching(/^no (NVIDIA GPU found|CUDA provider for)/) });
  },
  'settings.get': async (api) => {
    const settings = await api.call('settings.get');
    expect(settings.dataHome).toBe(env.home);
    expect(settings.access.writable).toBe(true);
    expect(settings.homeBytes).toBeGreaterThan(0);
  },
  'settings.set': async (api) => {
    const defaults = { newRun: { env: 'mock', model: 'nano' }, evaluate: { split: 'ood' as const, limit: 5 } };
    expect((await api.call('settings.set', { defaults })).defaults).toEqual(defaults);
    expect((await api.call('settings.get')).defaults).toEqual(defaults);
    await expect(api.call('settings.set', { defaults: { ...defaults, evaluate: { split: 'ood', limit: 0 } } })).rejects.toMatchObject({ code: 'invalid_input' });
  },
  'runs.list': async (api) => expect((await api.call('runs.list', {})).items.map((r) => r.id)).toContain(fixtures.runId),
  'runs.get': async (api) => expect((await api.call('runs.get', { id: fixtures.runId })).config.rollout.k).toBe(4),
  'runs.create': async (api) => {
    const run = await api.call('runs.create', { config: { env: 'contract-test', algo: 'grpo-real', steps: 2 } });
    expect(run).toMatchObject({ status: 'created', algo: 'grpo-real', totalSteps: 2 });
  },
  'runs.recipe': async (api) => {
    const recipe = await api.call('runs.recipe', { env: 'contract-test', model: { preset: 'nano' } });
    expect(recipe).toMatchObject({ id: 'contract-test/nano', config: { env: 'contract-test', algo: 'sft+envace', model: { preset: 'nano' } } });
    expect(recipe.config.sft.steps).toBeGreaterThan(0);
    await expect(api.call('runs.recipe', { env: 'no-such-env' })).rejects.toMatchObject({ code: 'not_found' });
  },
  'runs.preflight': async (api) => {
    // A shape that fits nano's 256 tokens (the default one is refused: see the context checks).
    const config = { env: 'retail', worldSize: 5, model: { preset: 'nano' as const }, algo: 'sft+envace' as const, sft: { steps: 100 }, steps: 5, rollout: { toolSchemas: 'none' as const, maxObservationTokens: 24 } };
    const good = await api.call('runs.preflight', { config });
    expect(good).toMatchObject({ ok: true, plannedSteps: 105, taskCounts: { train: expect.any(Number) } });
    expect(good.params).toBeGreaterThan(50_000);
    expect(good.memoryEstimateBytes).toBeGreaterThan(good.params! * 16);
    expect(good.checks.map((c) => c.name)).toEqual(['config', 'environment', 'demonstrations', 'memory', 'tokenizer', 'device', 'stages', 'context', 'memory room', 'demonstrations fit']);
    const bad = await api.call('runs.preflight', { config: { env: 'no-such-env', model: { imported: 'missing' } } });
    expect(bad.ok).toBe(false);
    expect(bad.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['environment', 'model']);
  },
  'runs.start': async (api) => {
    const run = await api.call('runs.create', { config: { env: 'contract-test', steps: 2 } });
    expect((await api.call('runs.start', { id: run.id })).status).toMatch(/queued|running/);
    // The contract's test environment is not a registered training world: the job fails and says why.
    const final = await settled(api, run.id);
    expect(final).toMatchObject({ status: 'failed', error: expect.stringMatching(/contract-test/) });
    await expect(api.call('runs.start', { id: run.id })).rejects.toMatchObject({ code: 'conflict' });
  },
  'runs.cancel': async (api) => {
    let release = () => {};
    const blocker = env.engine.services.jobs.enqueue({ kind: 'probe', label: 'blocker', run: () => new Promise<void>((r) => (release = r)) });
    const run = await api.call('runs.create', { config: { env: 'contract-test' }, start: true });
    expect(run.status).toBe('queued');
    await api.call('runs.cancel', { id: run.id });
    expect((await api.call('runs.get', { id: run.id })).status).toBe('cancelled');
    await expect(api.call('runs.cancel', { id: run.id })).rejects.toMatchObject({ code: 'conflict' });
    release();
    await env.engine.services.jobs.wait(blocker.id);
  },
  'runs.resume': async (api) => {
    const run = await api.call('runs.create', { config: { env: 'contract-test' }, start: true });
    await settled(api, run.id);
    expect((await api.call('runs.resume', { id: run.id })).status).toMatch(/queued|running/);
    expect((await settled(api, run.id)).status).toBe('failed');
    await expect(api.call('runs.resume', { id: fixtures.runId })).rejects.toMatchObject({ code: 'conflict' }); // a created run starts, it does not resume
  },
  'runs.fork': async (api) => {
    await expect(api.call('runs.fork', { id: fixtures.runId, fromStep: 7 })).rejects.toMatchObject({ code: 'not_found' });
    const child = await api.call('runs.fork', { id: fixtures.runId, fromStep: 1 });
    expect(child).toMatchObject({ parentRunId: fixtures.runId, parentStep: 1 });
    expect(child.id).not.toBe(fixtures.runId);
    await settled(api, child.id);
  },
  'runs.log': async (api) => {
    expect((await api.call('runs.log', { id: fixtures.runId })).lines).toEqual([{ runId: fixtures.runId, level: 'warn', message: 'seeded line', time: 1000 }]);
    await expect(api.call('runs.log', { id: 'missing-run' })).rejects.toMatchObject({ code: 'not_found' });
  },
  'runs.delete': async (api) => {
    const run = await api.call('runs.create', { config: { env: 'contract-test' } });
    await api.call('runs.delete', { id: run.id });
    await expect(api.call('runs.get', { id: run.id })).rejects.toMatchObject({ code: 'not_found' });
  },
  'metrics.keys': async (api) => expect((await api.call('metrics.keys', { id: fixtures.runId })).keys).toEqual(['loss/policy', 'reward']),
  'metrics.query': async (api) => {
    const { series } = await api.call('metrics.query', { runId: fixtures.runId, keys: ['reward'] });
    expect(series[0]).toMatchObject({ key: 'reward', steps: [1], values: [0.5], total: 1 });
  },
  'trajectories.list': async (api) => expect((await api.call('trajectories.list', { runId: fixtures.runId })).items[0]).toMatchObject({ id: fixtures.rolloutId, turnCount: 2 }),
  'trajectories.realityCheck': async (api) => {
    const { rollout, summary } = await api.call('trajectories.realityCheck', { id: fixtures.rehearsedId });
    expect(summary).toMatchObject({ compared: 1, exactRate: 0 });
    const checked = rollout.turns[2];
    expect(checked.role).toBe('rehearse');
    expect(checked.realText).toContain('user_'); // the real mock DB's users, beside the imagined answer
    expect(checked.fidelity).toMatchObject({ exact: false });
    await expect(api.call('trajectories.realityCheck', { id: fixtures.rolloutId })).rejects.toMatchObject({ code: 'conflict' });
  },
  'trajectories.get': async (api) => {
    const rollout = await api.call('trajectories.get', { id: fixtures.rolloutId });
    expect(rollout.turns[1]).toMatchObject({ role: 'act', tokenIds: [4, 5], logprobs: [-0.5, -0.25] });
  },
  'memories.list': async (api) => expect((await api.call('memories.list', { taskId: 't1' })).items.length).toBeGreaterThan(0),
  'memories.get': async (api) => expect((await api.call('memories.get', { id: fixtures.memoryId })).structured.consensus.answer).toBe('4'),
  'memories.update': async (api) => {
    const edited = await api.call('memories.update', { id: fixtures.memoryId, text: 'edited by hand' });
    expect(edited).toMatchObject({ parentId: fixtures.memoryId, source: 'edit', text: 'edited by hand' });
    expect((await api.call('memories.get', { id: fixtures.memoryId })).text).toBe('consensus: echo');
  },
  'memories.rehearse': async (api) => {
    const { memory, rehearsalIds } = await api.call('memories.rehearse', { runId: fixtures.policyRun, taskId: 'create_task_1', rehearsals: 2, mode: 'sequential' });
    expect(memory).toMatchObject({ env: 'mock', taskId: 'create_task_1', runId: fixtures.policyRun, source: 'rehearsal', version: 1 });
    expect(memory.structured.rehearsals).toHaveLength(2);
    expect(rehearsalIds).toHaveLength(2);
    for (const id of rehearsalIds) expect(await api.call('trajectories.get', { id })).toMatchObject({ mode: 'test-time', purpose: 'rehearsal', envCalls: 0, memoryId: memory.id });
    await expect(api.call('memories.rehearse', { runId: fixtures.policyRun, taskId: 'no-such-task' })).rejects.toMatchObject({ code: 'not_found' });
  },
  'memories.fit': async (api) => {
    const { memory } = await api.call('memories.rehearse', { runId: fixtures.policyRun, taskId: 'create_task_1', rehearsals: 1 });
    const short = await api.call('memories.fit', { memoryId: (await api.call('memories.update', { id: memory.id, text: 'Plan: call get_users first.' })).id, runId: fixtures.policyRun });
    expect(short).toMatchObject({ cut: false, commit: 'prompt' });
    expect(short.total).toBeLessThanOrEqual(short.room);
    const long = await api.call('memories.update', { id: memory.id, text: 'Check every user and every task before acting. '.repeat(40) });
    const fit = await api.call('memories.fit', { memoryId: long.id, runId: fixtures.policyRun });
    expect(fit.cut).toBe(true);
    expect(fit.total).toBeGreaterThan(fit.room);
    // Chosen to fit: plan when there is a consensus plan to follow, whatever the prompt holds.
    expect(fit.commit).toBe(memory.structured.consensus.plan.length > 0 ? 'plan' : 'prompt');
    expect(fit.reason).toContain(`memory ${fit.total} tokens, room ${fit.room}`);
    // The commit without a mode takes the one chosen, and says so.
    expect((await api.call('memories.commit', { memoryId: long.id, runId: fixtures.policyRun })).commit).toBe(fit.commit);
    await expect(api.call('memories.fit', { memoryId: 999_999, runId: fixtures.policyRun })).rejects.toMatchObject({ code: 'not_found' });
  },
  'memories.commit': async (api) => {
    const { memory } = await api.call('memories.rehearse', { runId: fixtures.policyRun, taskId: 'create_task_1', rehearsals: 1 });
    const edited = await api.call('memories.update', { id: memory.id, text: 'Plan: call get_users first.' });
    const outcome = await api.call('memories.commit', { memoryId: edited.id, runId: fixtures.policyRun });
    expect(outcome).toMatchObject({ memoryId: edited.id, commit: 'prompt', fellBackAtTurn: null });
    const rollout = await api.call('trajectories.get', { id: outcome.rolloutId });
    // The committed run used the edited memory, in its own <|memory|> turn.
    expect(rollout).toMatchObject({ mode: 'test-time', purpose: 'commit', memoryId: edited.id });
    expect(rollout.turns.find((t) => t.role === 'memory')?.text).toContain('Plan: call get_users first.');
    expect(outcome.memoryTokens.kept).toBe(outcome.memoryTokens.total);
    // A memory longer than nano's context leaves room for is cut to its end, and the outcome says so.
    const long = await api.call('memories.update', { id: memory.id, text: `${'Check every user and every task before acting. '.repeat(40)}Plan: call get_users first.` });
    const cut = await api.call('memories.commit', { memoryId: long.id, runId: fixtures.policyRun });
    expect(cut.memoryTokens.kept).toBeGreaterThan(0);
    expect(cut.memoryTokens.kept).toBeLessThan(cut.memoryTokens.total);
    const kept = (await api.call('trajectories.get', { id: cut.rolloutId })).turns.find((t) => t.role === 'memory')!.text;
    expect(kept.endsWith('Plan: call get_users first.')).toBe(true);
  },
  'evals.run': async (api) => {
    const result = await api.call('evals.run', { runId: fixtures.policyRun, split: 'heldout', limit: 2 });
    expect(result).toMatchObject({ runId: fixtures.policyRun, step: 1, env: 'mock', tasks: 2, rehearsals: 0 });
    expect(result.perTask).toHaveLength(2);
    expect(result.success).toBeGreaterThanOrEqual(0);
    await expect(api.call('evals.run', { runId: fixtures.runId })).rejects.toMatchObject({ code: 'not_found' }); // its checkpoint row points at no folder
  },
  'evals.list': async (api) => expect((await api.call('evals.list', { runId: fixtures.policyRun })).items.length).toBeGreaterThan(0),
  'evals.model': async (api) => {
    const result = await api.call('evals.model', { model: 'tiny-llama-1k', env: 'mock', limit: 1 });
    expect(result).toMatchObject({ model: 'tiny-llama-1k', env: 'mock', split: 'heldout', recipe: 'mock/imported', tasks: 1 });
    expect(result.perTask).toHaveLength(1);
    await expect(api.call('evals.model', { model: 'no-such-model', env: 'mock' })).rejects.toMatchObject({ code: 'not_found' });
  },
  'envs.ids': async (api) => expect(await api.call('envs.ids')).toEqual({ ids: ['contract-test'] }),
  'envs.list': async (api) => expect((await api.call('envs.list')).items.map((e) => e.id)).toEqual(['contract-test']),
  'envs.get': async (api) => expect((await api.call('envs.get', { id: 'contract-test' })).tools[0].name).toBe('echo'),
  'envs.tasks': async (api) => {
    expect(await api.call('envs.tasks', { id: 'contract-test', split: 'train' })).toEqual({
      items: [
        { id: 'echo-hello', split: 'train', instruction: 'Echo hello' },
        { id: 'echo-world', split: 'train', instruction: 'Echo world' },
      ],
      total: 2,
    });
    expect((await api.call('envs.tasks', { id: 'contract-test', search: 'NEW' })).items.map((t) => t.id)).toEqual(['echo-held']);
    await expect(api.call('envs.tasks', { id: 'nope' })).rejects.toMatchObject({ code: 'not_found' });
  },
  'envs.addMcp': async (api) => {
    // The real MCP filesystem server over a folder in the data home, with a one-task file.
    const id = `fs-${Math.random().toString(36).slice(2, 8)}`;
    const added = await api.call('envs.addMcp', { id, server: { command: process.execPath, args: [fixtures.fsServer, fixtures.sandbox] }, taskFile: fixtures.taskFile });
    expect(added).toMatchObject({ id, track: 'mcp', taskCounts: { train: 1, heldout: 0, ood: 0 } });
    expect(added.toolCount).toBeGreaterThan(5);
    await expect(api.call('envs.addMcp', { id, server: { command: process.execPath, args: [fixtures.fsServer, fixtures.sandbox] }, taskFile: fixtures.taskFile })).rejects.toMatchObject({ code: 'conflict' });
    await expect(api.call('envs.addMcp', { id: `${id}-bad`, server: { command: '/nonexistent/server' }, taskFile: fixtures.taskFile })).rejects.toMatchObject({ code: 'invalid_input' });
  },
  'envs.test': async (api) => {
    const id = `fs-test-${Math.random().toString(36).slice(2, 8)}`;
    await api.call('envs.addMcp', { id, server: { command: process.execPath, args: [fixtures.fsServer, fixtures.sandbox] }, taskFile: fixtures.goldTaskFile });
    const tested = await api.call('envs.test', { id });
    expect(tested.tools).toContain('read_text_file');
    expect(tested.reset).toMatch(/^restart/);
    expect(tested.oracle.split.train).toEqual({ passed: 1, total: 1 });
    expect(tested.oracle.failures).toEqual([]);
    await expect(api.call('envs.test', { id: 'no-such-env' })).rejects.toMatchObject({ code: 'not_found' });
  },
  'envs.remove': async (api) => {
    const id = `fs-rm-${Math.random().toString(36).slice(2, 8)}`;
    await api.call('envs.addMcp', { id, server: { command: process.execPath, args: [fixtures.fsServer, fixtures.sandbox] }, taskFile: fixtures.taskFile });
    expect(await api.call('envs.remove', { id })).toEqual({ ok: true });
    await expect(api.call('envs.get', { id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.call('envs.remove', { id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.call('envs.remove', { id: 'retail' })).rejects.toMatchObject({ code: 'conflict' });
  },
  'envs.call': async (api) => expect(await api.call('envs.call', { env: 'contract-test', tool: 'echo', arguments: { text: 'hello' } })).toMatchObject({ observation: 'hello', ok: true }),
  'models.list': async (api) => expect((await api.call('models.list')).items.map((m) => m.name)).toContain('tiny-llama'),
  'models.import': async (api) => {
    // Over a GUI transport the folder must be inside the data home; the fixture is.
    const name = `copy-${Math.random().toString(36).slice(2, 8)}`;
    const model = await api.call('models.import', { hfDir: fixtures.hfDir, name });
    expect(model).toMatchObject({ name, architecture: 'LlamaForCausalLM', vocabSize: fixtures.vocabSize });
    await expect(api.call('models.import', { hfDir: fixtures.hfDir, name })).rejects.toMatchObject({ code: 'conflict' });
    const fromGguf = await api.call('models.import', { ggufFile: fixtures.ggufFile, name: `${name}-gguf` });
    expect(fromGguf).toMatchObject({ name: `${name}-gguf`, architecture: 'LlamaForCausalLM', vocabSize: fixtures.vocabSize, paramCount: model.paramCount });
    await expect(api.call('models.import', { hfDir: fixtures.hfDir, ggufFile: fixtures.ggufFile, name: `${name}-both` })).rejects.toMatchObject({ code: 'invalid_input' });
  },
  'models.search': async (api) => {
    const found = await api.call('models.search', { query: 'llama' });
    expect(found).toMatchObject({ endpoint: hub.url, items: [{ id: 'tiny/llama', gated: false }] });
    expect((await api.call('models.search', { query: 'no-such-model' })).items).toEqual([]);
  },
  'models.pull': async (api) => {
    const pullId = `p${Math.random().toString(36).slice(2, 10)}`;
    const seen: Array<{ phase: string; fraction: number | null }> = [];
    const off = api.on('models.pull.progress', (p) => p.pullId === pullId && seen.push(p));
    const name = `pulled-${pullId}`;
    const r = await api.call('models.pull', { repo: 'tiny/llama', name, pullId });
    off();
    expect(r).toMatchObject({ pullId, repo: 'tiny/llama', revision: 'main', commit: 'd'.repeat(40), model: { name, architecture: 'LlamaForCausalLM', vocabSize: fixtures.vocabSize } });
    expect(r.files).toContain('model-00002-of-00002.safetensors');
    expect((await api.call('models.list')).items.map((m) => m.name)).toContain(name);
    // The events came over this transport: resolving first, done last at the whole size.
    expect(seen[0]?.phase).toBe('resolving');
    expect(seen.at(-1)).toMatchObject({ phase: 'done', fraction: 1 });
    await expect(api.call('models.pull', { repo: 'tiny/llama', name })).rejects.toMatchObject({ code: 'conflict' });
    await expect(api.call('models.pull', { repo: 'not a repo' })).rejects.toMatchObject({ code: 'invalid_input' });
  },
  'exports.list': async (api) => expect(Array.isArray((await api.call('exports.list')).items)).toBe(true),
  'exports.create': async (api) => {
    const record = await api.call('exports.create', { source: { model: 'tiny-llama' }, format: 'hf' });
    expect(record.files.map((f) => f.name)).toEqual(expect.arrayContaining(['config.json', 'model.safetensors', 'tokenizer.json', 'README.md']));
    expect(record.outDir.startsWith(path.join(env.home, 'exports'))).toBe(true);
    expect(record.loadSnippet).toContain('from_pretrained');
    expect((await api.call('exports.list')).items[0].id).toBe(record.id);
    await expect(api.call('exports.create', { source: { run: fixtures.runId }, format: 'hf' })).rejects.toMatchObject({ code: 'invalid_input' }); // the seeded checkpoint row has no files
  },
  'jobs.list': async (api) => expect(Array.isArray((await api.call('jobs.list')).items)).toBe(true),
  'jobs.cancel': async (api) => {
    let release = () => {};
    const blocker = env.engine.services.jobs.enqueue({ kind: 'probe', label: 'blocker', run: () => new Promise<void>((r) => (release = r)) });
    expect(env.engine.services.jobs.get(blocker.id)?.state).toBe('running');
    const queued = env.engine.services.jobs.enqueue({ kind: 'probe', label: 'queued', run: async () => {} });
    await api.call('jobs.cancel', { id: queued.id });
    expect(env.engine.services.jobs.get(queued.id)?.state).toBe('cancelled');
    release();
    await env.engine.services.jobs.wait(blocker.id);
  },
};

describe.each(['ipc', 'websocket', 'in-process'])('contract over %s', (name) => {
  const api = () => transports.find(([n]) => n === name)![1]();

  it('has a round-trip case for every method in the contract', () => {
    expect(Object.keys(cases).sort()).toEqual([...methodNames].sort());
  });

  it.each(methodNames)('%s round-trips with valid input', async (method) => {
    await cases[method](api());
  });

  it('answers invalid payloads with typed errors and keeps serving', async () => {
    const client = api();
    const bad: Array<[MethodName, unknown, string]> = [
      ['runs.get', { id: 42 }, 'invalid_input'],
      ['runs.get', { id: 'x', extra: true }, 'invalid_input'],
      ['runs.get', { id: 'a'.repeat(1_000_000) }, 'invalid_input'],
      ['runs.create', { config: { env: 'contract-test', rollout: { k: -1 } } }, 'invalid_input'],
      ['runs.create', { config: { env: 'no-such-env' } }, 'invalid_input'],
      ['runs.list', { limit: 'all' }, 'invalid_input'],
      ['metrics.query', { runId: fixtures.runId, maxPoints: 1e9 }, 'invalid_input'],
      ['memories.update', { id: fixtures.memoryId, structured: { rehearsals: 'nope' } }, 'invalid_input'],
      ['runs.get', { id: 'missing-run' }, 'not_found'],
      ['trajectories.get', { id: 999_999 }, 'not_found'],
      ['runs.get', null, 'invalid_input'],
      // Outside the data home: refused for GUI transports; /etc is no model folder for the CLI either.
      ['models.import', { hfDir: '/etc', name: 'x' }, 'invalid_input'],
      name === 'in-process'
        ? ['exports.create', { source: { model: 'tiny-llama' }, format: 'hf', outDir: path.join(env.home, 'runs') }, 'conflict'] // would clobber the runs
        : ['exports.create', { source: { model: 'tiny-llama' }, format: 'hf', outDir: '/tmp/elsewhere' }, 'invalid_input'],
    ];
    for (const [method, input, code] of bad) {
      const error = await (client.call as (m: string, i: unknown) => Promise<unknown>)(method, input).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, `${method} ${JSON.stringify(input).slice(0, 60)}`).toBeInstanceOf(ContractError);
      expect((error as ContractError).code).toBe(code);
    }
    const unknown = await (client.call as (m: string, i: unknown) => Promise<unknown>)('runs.hack', {}).catch((e: ContractError) => e.code);
    expect(unknown).toBe('unknown_method');
    // Still serving after all of that.
    expect((await client.call('runs.get', { id: fixtures.runId })).id).toBe(fixtures.runId);
  });

  it('pushes events to subscribers', async () => {
    const client = api();
    const seen = new Promise((resolve) => {
      const off = client.on('run.status', (payload) => {
        off();
        resolve(payload);
      });
    });
    const run = await client.call('runs.create', { config: { env: 'contract-test' } });
    expect(await seen).toMatchObject({ runId: run.id, status: 'created' });
  });
});

describe('websocket frames', () => {
  it('answers a malformed frame with a typed error and keeps the socket open', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=test-token-123`);
    await new Promise((r) => socket.once('open', r));
    const replies: unknown[] = [];
    socket.on('message', (d) => replies.push(JSON.parse(String(d))));
    socket.send('{not json');
    socket.send(JSON.stringify({ type: 'request', id: 'x', method: 'runs.list' }));
    socket.send(JSON.stringify({ type: 'request', id: 7, method: 'runs.list', input: {} }));
    await expect.poll(() => replies.length).toBeGreaterThanOrEqual(3);
    expect(replies[0]).toMatchObject({ type: 'response', id: null, result: { ok: false, error: { code: 'invalid_input' } } });
    expect(replies.find((r) => (r as { id: unknown }).id === 7)).toMatchObject({ result: { ok: true } });
    socket.close();
  });
});

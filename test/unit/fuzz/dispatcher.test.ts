// Fuzz the contract dispatcher of a real engine (real environments, a temp data home): every
// payload must come back as a result the contract can carry, never as a throw, never as an
// `internal` error (that is a bug's answer, not a bad payload's), and the engine must still
// answer afterwards. Deterministic: a failure names the seed and index that reproduce it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, ErrorCode, methodNames, ResultShape, type Handlers, type Result } from '../../../electron/contract';
import { registryCatalog } from '../../../electron/engine/envs/catalog';
import { homePaths } from '../../../electron/engine/home';
import { Rng } from '../../../electron/engine/random';
import type { RequestContext } from '../../../electron/engine/system/services';
import { valueBoundsProblem } from '../../../native-models/io';
import { tempHome, testEngine } from '../../helpers/engine';
import { adversarialValue, deeplyNested, HOSTILE_STRINGS, protoKeyed, randomString, randomValue } from './payloads';

const SEED = 20_251_201;
const COUNT = 2_000;
const TRANSPORTS: RequestContext['transport'][] = ['websocket', 'ipc', 'in-process'];

let env: ReturnType<typeof testEngine>;
const tools: Array<{ env: string; tool: string; params: string[] }> = [];
const internalErrors: unknown[] = [];

beforeAll(async () => {
  const home = tempHome('envace-fuzz-');
  env = testEngine({ home, envs: registryCatalog(homePaths(home)) });
  const list = await env.engine.dispatch('envs.list', {}, { transport: 'in-process' });
  if (!list.ok) throw new Error(list.error.message);
  for (const { id } of (list.value as { items: Array<{ id: string }> }).items) {
    const detail = await env.engine.dispatch('envs.get', { id }, { transport: 'in-process' });
    if (!detail.ok) continue;
    for (const t of (detail.value as { tools: Array<{ name: string; parameters: { properties?: Record<string, unknown> } }> }).tools)
      tools.push({ env: id, tool: t.name, params: Object.keys(t.parameters.properties ?? {}) });
  }
});

afterAll(async () => {
  await env.cleanup();
});

/** A payload shaped like a real call with one part made hostile, so it gets past the schema. */
function nearlyValid(rng: Rng): { method: string; input: unknown } {
  const t = rng.pick(tools);
  const args: Record<string, unknown> = {};
  for (const p of t.params) if (rng.next() < 0.7) args[p] = rng.next() < 0.5 ? randomValue(rng, 2) : randomString(rng);
  switch (rng.int(0, 5)) {
    case 0:
    case 1:
      return {
        method: 'envs.call',
        input: {
          env: t.env,
          tool: rng.next() < 0.9 ? t.tool : randomString(rng),
          arguments: args,
          taskId: rng.next() < 0.2 ? randomString(rng) : undefined,
        },
      };
    case 2:
      return {
        method: 'envs.tasks',
        input: { id: t.env, search: randomString(rng), split: rng.pick(['train', 'heldout', 'ood']), limit: rng.int(1, 1000) },
      };
    case 3:
      return { method: rng.pick(['runs.get', 'metrics.keys', 'runs.cancel', 'runs.delete', 'jobs.cancel']), input: { id: randomString(rng) } };
    case 4:
      return { method: 'trajectories.list', input: { runId: randomString(rng), limit: rng.int(0, 500) } };
    default:
      return {
        method: rng.pick(['models.import', 'exports.create']),
        input: { hfDir: rng.pick(HOSTILE_STRINGS), source: { model: randomString(rng) }, format: 'hf', outDir: '/proc/x' },
      };
  }
}

function payload(rng: Rng): { method: unknown; input: unknown } {
  const roll = rng.next();
  if (roll < 0.05) return { method: rng.next() < 0.5 ? randomString(rng) : randomValue(rng, 1), input: randomValue(rng) };
  if (roll < 0.4) return { method: rng.pick(methodNames), input: randomValue(rng) };
  if (roll < 0.6) return { method: rng.pick(methodNames), input: adversarialValue(rng) };
  return nearlyValid(rng);
}

function checkResult(result: Result<unknown>, where: string): void {
  const shape = ResultShape.safeParse(result);
  expect(shape.success, `${where}: not a contract result`).toBe(true);
  if (!result.ok) {
    expect(ErrorCode.options, where).toContain(result.error.code);
    if (result.error.code === 'internal') internalErrors.push({ where, message: result.error.message });
  }
}

async function engineAnswers(): Promise<void> {
  const info = await env.engine.dispatch('system.info', {}, { transport: 'websocket' });
  expect(info.ok).toBe(true);
}

describe('contract dispatcher fuzz (real engine, real environments)', () => {
  it(`${COUNT.toLocaleString('en')} random and adversarial payloads: typed error, engine alive`, async () => {
    const rng = new Rng(SEED);
    for (let i = 0; i < COUNT; i++) {
      const { method, input } = payload(rng);
      const transport = rng.pick(TRANSPORTS);
      const where = `seed ${SEED} payload #${i} (${typeof method === 'string' ? method.slice(0, 40) : typeof method} over ${transport})`;
      const result = await env.engine.dispatch(method, input, { transport });
      checkResult(result, where);
      expect(({} as Record<string, unknown>).polluted, `${where} polluted Object.prototype`).toBeUndefined();
      if (i % 250 === 0) await engineAnswers();
    }
    expect(internalErrors).toEqual([]);
    await engineAnswers();
  });

  it('arguments nested 1,500 deep (3 KB) get invalid_input; the engine answers afterwards', async () => {
    const result = await env.engine.dispatch('envs.call', { env: 'retail', tool: 'x', arguments: deeplyNested(1_500) }, { transport: 'ipc' });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    await engineAnswers();
  });

  it('50 tool calls whose arguments nest 1,100 to 20,000 deep get invalid_input over every transport', async () => {
    const rng = new Rng(SEED + 1);
    for (let i = 0; i < 50; i++) {
      const transport = TRANSPORTS[i % TRANSPORTS.length];
      const nested = deeplyNested(rng.int(1_100, 20_000), i % 2 ? 'array' : 'object');
      const result = await env.engine.dispatch('envs.call', { env: 'retail', tool: 'calculate', arguments: { expression: nested } }, { transport });
      expect(result, `#${i} over ${transport}`).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
    await engineAnswers();
  });

  it('own __proto__ and constructor keys are data, never a prototype', async () => {
    const result = await env.engine.dispatch('envs.call', { env: 'retail', tool: 'x', arguments: protoKeyed() }, { transport: 'websocket' });
    checkResult(result, '__proto__ arguments');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('createDispatcher', () => {
  // A table whose every handler would be a bug to reach: the cases below must stop before it.
  const handlers = new Proxy({}, { get: () => () => ({ ok: true }) }) as Handlers<void>;

  it('with inputProblem = valueBoundsProblem, refuses deep and oversized input before the schema', async () => {
    const dispatch = createDispatcher(handlers, { inputProblem: (input) => valueBoundsProblem(input) });
    expect(await dispatch('system.info', deeplyNested(100), undefined)).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('deeper than 64') },
    });
    expect(await dispatch('system.info', { big: 'x'.repeat(9 * 1024 * 1024) }, undefined)).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('larger than') },
    });
  });

  it('answers a throw while validating (stack overflow, a throwing getter) with invalid_input, never a rejection', async () => {
    const dispatch = createDispatcher(handlers);
    await expect(dispatch('envs.call', { env: 'retail', tool: 'x', arguments: deeplyNested(20_000) }, undefined)).resolves.toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    const hostile = Object.defineProperty({}, 'id', {
      enumerable: true,
      get: () => {
        throw new Error('getter says no');
      },
    });
    await expect(dispatch('runs.get', hostile, undefined)).resolves.toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('getter says no') },
    });
  });

  it('a handler that throws a non-Error, and a reporter that throws too, still give one internal result', async () => {
    const dispatch = createDispatcher(
      {
        ...handlers,
        'system.info': () => {
          throw Symbol('odd');
        },
      } as unknown as Handlers<void>,
      {
        onInternalError: () => {
          throw new Error('reporter broke');
        },
      },
    );
    await expect(dispatch('system.info', {}, undefined)).resolves.toMatchObject({
      ok: false,
      error: { code: 'internal', message: 'system.info failed: Symbol(odd)' },
    });
  });

  it('an Error whose message is not a string is still described, in the handler and while validating', async () => {
    const oddError = (message: unknown) => Object.assign(new Error(), { message });
    const throwing = createDispatcher({
      ...handlers,
      'runs.get': () => {
        throw oddError({ detail: 'odd' });
      },
    } as unknown as Handlers<void>);
    await expect(throwing('runs.get', { id: 'x' }, undefined)).resolves.toMatchObject({
      ok: false,
      error: { code: 'internal', message: 'runs.get failed: [object Object]' },
    });
    const getter = Object.defineProperty({}, 'id', {
      enumerable: true,
      get: () => {
        throw oddError(42);
      },
    });
    await expect(createDispatcher(handlers)('runs.get', getter, undefined)).resolves.toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('(42)') },
    });
  });
});

/**
 * One test per rule where our BFCL checker used to differ from BFCL's own
 * (bfcl_eval/eval_checker/ast_eval/ast_checker.py, eval_runner.py, constants/type_mappings.py).
 */
import { describe, expect, it } from 'vitest';
import { checkBfcl, floatLiteralPaths, normaliseBfclString, type BfclCall } from '../../../../../electron/engine/envs/bfcl/checker';
import type { BfclFunction, GroundTruthCall } from '../../../../../electron/engine/envs/bfcl/data';
import { BfclEnv } from '../../../../../electron/engine/envs/bfcl/env';
import { toToolSpec } from '../../../../../electron/engine/envs/bfcl/tools';
import { parseAction } from '../../../../../electron/engine/envs/parser';
import type { JsonValue } from '../../../../../electron/engine/envs/types';

const fn = (properties: BfclFunction['parameters']['properties'], required: string[] = []): BfclFunction => ({
  name: 'f',
  description: '',
  parameters: { type: 'dict', properties, required },
});
const call = (args: { [k: string]: JsonValue }, floats?: string[]): BfclCall => ({ name: 'f', arguments: args, ...(floats ? { floats: new Set(floats) } : {}) });
const expect1 = (params: GroundTruthCall['params']): GroundTruthCall[] => [{ name: 'f', params }];

describe('BFCL rules as upstream has them', () => {
  it('a float is rejected for an integer parameter (type(5.0) is float), an int is accepted for a float', () => {
    const f = fn({ count: { type: 'integer' }, size: { type: 'float' }, xs: { type: 'array', items: { type: 'integer' } } });
    const truth = expect1({ count: [5], size: [2.0], xs: [[1, 2]] });
    expect(checkBfcl([call({ count: 5, size: 2, xs: [1, 2] })], truth, [f]).passed).toBe(true);
    // The model wrote `"count": 5.0`: JSON.parse makes it 5, its literal says float.
    const args = '{"count": 5.0, "size": 2, "xs": [1, 2.0]}';
    expect(floatLiteralPaths(args)).toEqual(new Set(['count', 'xs/1']));
    expect(checkBfcl([call({ count: 5, size: 2, xs: [1, 2] }, ['count'])], truth, [f])).toMatchObject({ passed: false, detail: expect.stringMatching(/"count" should be of type integer, got float/) });
    expect(checkBfcl([call({ count: 5, size: 2, xs: [1, 2] }, ['xs/1'])], truth, [f]).passed).toBe(false);
  });

  it("standardised strings turn ' into \" (standardize_string)", () => {
    expect(normaliseBfclString("It's 'ok'")).toBe('it"s"ok"');
    const f = fn({ text: { type: 'string' } });
    expect(checkBfcl([call({ text: 'say "hi"' })], expect1({ text: ["say 'hi'"] }), [f]).passed).toBe(true);
  });

  it('"" is accepted for an optional parameter (it standardises to the optional marker)', () => {
    const f = fn({ unit: { type: 'string' } });
    expect(checkBfcl([call({ unit: '' })], expect1({ unit: ['', 'cm'] }), [f]).passed).toBe(true);
    expect(checkBfcl([call({ unit: '' })], expect1({ unit: ['cm'] }), [f]).passed).toBe(false);
  });

  it('an empty allowed list matches nothing', () => {
    const f = fn({ tags: { type: 'array', items: { type: 'string' } } });
    expect(checkBfcl([call({ tags: [] })], expect1({ tags: [] }), [f]).passed).toBe(false);
    expect(checkBfcl([call({ tags: [] })], expect1({ tags: [[], ''] }), [f]).passed).toBe(true);
  });

  it('parallel calls are matched greedily: each expected call takes the first unused call that fits', () => {
    const f = fn({ x: { type: 'integer' } }, ['x']);
    const truth: GroundTruthCall[] = [
      { name: 'f', params: { x: [1, 2] } },
      { name: 'f', params: { x: [1] } },
    ];
    // A one-to-one assignment exists (2 → first, 1 → second), but BFCL gives the first expected call
    // the first call, x = 1, and then nothing is left for the second.
    expect(checkBfcl([call({ x: 1 }), call({ x: 2 })], truth, [f]).passed).toBe(false);
    expect(checkBfcl([call({ x: 2 }), call({ x: 1 })], truth, [f]).passed).toBe(true);
  });

  it('a parameter missing from the function doc is unexpected, even where the answer lists it', () => {
    const f = fn({ a: { type: 'string' } });
    expect(checkBfcl([call({ a: 'x', b: 'y' })], expect1({ a: ['x'], b: ['y', ''] }), [f]).passed).toBe(false);
  });

  it('`any` is a string, as BFCL maps it, for the tool schema and the checker', () => {
    expect(toToolSpec(fn({ v: { type: 'any' } })).parameters.properties).toEqual({ v: { type: 'string' } });
    const f = fn({ v: { type: 'any' } });
    // A non-string value passes only as BFCL's "variable": the answer's own type, compared as is.
    expect(checkBfcl([call({ v: 3 })], expect1({ v: [3] }), [f]).passed).toBe(true);
    expect(checkBfcl([call({ v: { k: 'v' } })], expect1({ v: [{ k: ['v'] }] }), [f]).passed).toBe(false);
  });
});

describe('BFCL irrelevance: an output that does not decode is no call (eval_runner relevance check)', () => {
  const env = new BfclEnv();
  const task = env.task(env.tasks('heldout').find((r) => r.id.startsWith('bfcl-irrelevance_'))!.id);

  async function verdict(text: string): Promise<boolean> {
    const episode = await env.reset(task, 0);
    const action = parseAction(text, task.tools);
    expect(action.kind).toBe('invalid');
    await episode.step(action);
    return (await episode.finalCheck()).passed;
  }

  it('plain text passes; a call that decodes but breaks the tool schema is still a call and fails', async () => {
    expect(await verdict('None of these functions can answer that.')).toBe(true);
    expect(await verdict('<tool_call>{"name": "no_such_function", "arguments": {}}</tool_call>')).toBe(false);
  });
});

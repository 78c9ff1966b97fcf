import { describe, expect, it } from 'vitest';
import { DEFAULT_JSON_BOUNDS, JsonBoundsError, jsonTextDepth, parseBoundedJson, valueBoundsProblem } from '../../../../native-models/io';
import { deeplyNested, deeplyNestedText } from '../../fuzz/payloads';

const boundsError = (fn: () => unknown): JsonBoundsError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(JsonBoundsError);
    return error as JsonBoundsError;
  }
  throw new Error('expected a JsonBoundsError');
};

describe('parseBoundedJson', () => {
  it('parses within bounds and drops a byte-order mark', () => {
    expect(parseBoundedJson('\uFEFF{"a":[1,{"b":"}]"}]}')).toEqual({ a: [1, { b: '}]' }] });
    expect(parseBoundedJson(deeplyNestedText(64))).toEqual(deeplyNested(64));
  });

  it('refuses text nested past maxDepth (1,000,000 deep) before JSON.parse, without recursing', () => {
    expect(boundsError(() => parseBoundedJson(deeplyNestedText(65))).kind).toBe('too_deep');
    const error = boundsError(() => parseBoundedJson(deeplyNestedText(1_000_000, 'array'), { maxChars: 3_000_000 }, 'the frame'));
    expect(error).toMatchObject({ kind: 'too_deep', message: 'the frame nests deeper than 64 levels' });
  });

  it('refuses text over maxChars, and malformed text, with a typed error', () => {
    expect(boundsError(() => parseBoundedJson('[1,2,3]', { maxChars: 5 })).kind).toBe('too_large');
    expect(boundsError(() => parseBoundedJson('{"a":')).kind).toBe('malformed');
  });

  it('counts brackets inside strings (and escaped quotes) as text, not nesting', () => {
    expect(jsonTextDepth('{"a":"[[[[\\"[[[["}')).toBe(1);
    expect(jsonTextDepth('[[[]]]', 2)).toBe(3);
  });
});

describe('valueBoundsProblem', () => {
  it('accepts values within bounds, including a shared (not cyclic) object', () => {
    const shared = { x: 1 };
    expect(valueBoundsProblem({ a: shared, b: [shared, shared] })).toBeNull();
    expect(valueBoundsProblem(deeplyNested(DEFAULT_JSON_BOUNDS.maxDepth))).toBeNull();
    expect(valueBoundsProblem(null)).toBeNull();
  });

  it('refuses 100,000 levels of nesting without recursing', () => {
    expect(valueBoundsProblem(deeplyNested(100_000))).toBe('the value nests deeper than 64 levels');
    expect(valueBoundsProblem(deeplyNested(65, 'array'))).toBe('the value nests deeper than 64 levels');
  });

  it('refuses cycles, oversized strings and typed arrays, and small graphs that expand into huge trees', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = { back: cyclic };
    expect(valueBoundsProblem(cyclic)).toBe('the value contains itself (a cycle)');
    expect(valueBoundsProblem({ s: 'x'.repeat(1_000) }, { maxChars: 100 })).toMatch(/larger than 100/);
    expect(valueBoundsProblem(new Float32Array(1_000), { maxChars: 100 })).toMatch(/larger than 100/);
    let doubling: unknown = 'leaf';
    for (let i = 0; i < 40; i++) doubling = [doubling, doubling]; // 2^40 leaves as JSON
    expect(valueBoundsProblem(doubling)).toMatch(/larger than/);
  });
});

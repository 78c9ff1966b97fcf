import { describe, expect, it } from 'vitest';
import { argumentSkeleton, parseToolArguments } from '../../../../renderer/src/views/envs/tool-arguments';

describe('argumentSkeleton', () => {
  it('lists the required arguments with a placeholder of their type (or first enum value)', () => {
    const schema = {
      type: 'object',
      properties: {
        order_id: { type: 'string' },
        quantity: { type: 'integer' },
        gift: { type: 'boolean' },
        items: { type: 'array' },
        reason: { type: 'string', enum: ['no longer needed', 'ordered by mistake'] },
        note: { type: 'string' },
        anything: {},
      },
      required: ['order_id', 'quantity', 'gift', 'items', 'reason', 'anything'],
    };
    expect(argumentSkeleton(schema)).toEqual({ order_id: '', quantity: 0, gift: false, items: [], reason: 'no longer needed', anything: null });
  });
  it('gives {} for a schema without required arguments or without properties', () => {
    expect(argumentSkeleton({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({});
    expect(argumentSkeleton({ required: ['x'] })).toEqual({ x: null });
    expect(argumentSkeleton({ required: 'x' })).toEqual({});
  });
});

describe('parseToolArguments', () => {
  it('accepts a JSON object, and an empty box as no arguments', () => {
    expect(parseToolArguments('{"a": [1, {"b": null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
    expect(parseToolArguments('  ')).toEqual({ ok: true, value: {} });
  });
  it('explains syntax errors and non-object JSON', () => {
    const broken = parseToolArguments('{"a": ');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.issue).toMatch(/^not valid JSON: /);
    for (const text of ['[1]', '"x"', 'null', '3']) {
      const result = parseToolArguments(text);
      expect(result).toEqual({ ok: false, issue: 'arguments must be a JSON object, e.g. {"order_id": "#W1"}' });
    }
  });
});

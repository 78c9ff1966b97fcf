import { describe, expect, it } from 'vitest';
import { checkBfcl, hasBfclType, matchesAllowed, normaliseBfclString, oracleCalls } from '../../../../../electron/engine/envs/bfcl/checker';
import type { BfclFunction, GroundTruthCall } from '../../../../../electron/engine/envs/bfcl/data';
import { toToolSpec } from '../../../../../electron/engine/envs/bfcl/tools';

const area: BfclFunction = {
  name: 'geo.area',
  description: 'Area of a shape.',
  parameters: {
    type: 'dict',
    properties: {
      shape: { type: 'string' },
      size: { type: 'float' },
      count: { type: 'integer' },
      unit: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      box: { type: 'dict', properties: { w: { type: 'integer' }, h: { type: 'integer' } } },
    },
    required: ['shape', 'size'],
  },
};
const gt: GroundTruthCall = {
  name: 'geo.area',
  params: { shape: ['Circle, big'], size: [2.5], count: ['', 1], unit: ['', 'cm'], tags: [['a', 'b']], box: ['', { w: [3], h: [4, ''] }] },
};

const call = (args: Record<string, unknown>, name = 'geo.area') => ({ name, arguments: args as never });

describe('BFCL checker rules', () => {
  it('normalises strings by dropping spaces and ,./-_*^ and lower-casing', () => {
    expect(normaliseBfclString('New York, N.Y. - USA_*^')).toBe('newyorknyusa');
    expect(matchesAllowed('circle big', ['Circle, big'])).toBe(true);
    expect(matchesAllowed('circle bag', ['Circle, big'])).toBe(false);
  });

  it('passes the oracle call and a call using the other allowed values', () => {
    const oracle = oracleCalls([gt], [area]);
    expect(oracle).toEqual([call({ shape: 'Circle, big', size: 2.5, tags: ['a', 'b'] })]);
    expect(checkBfcl(oracle, [gt], [area]).passed).toBe(true);
    const other = call({ shape: 'circlebig', size: 2.5, count: 1, unit: 'CM', tags: ['A', 'b'], box: { w: 3, h: 4 } });
    expect(checkBfcl([other], [gt], [area])).toEqual({ passed: true, detail: 'the call matches' });
  });

  it('fails each broken rule with a message naming it', () => {
    const base = { shape: 'Circle, big', size: 2.5, tags: ['a', 'b'] };
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [base, 'geo.volume', /called geo.volume, expected geo.area/],
      [{ ...base, shape: undefined }, 'geo.area', /required parameter "shape" missing/],
      [{ ...base, colour: 'red' }, 'geo.area', /unexpected parameter "colour"/],
      [{ ...base, count: 1.5 }, 'geo.area', /"count" should be of type integer/],
      [{ ...base, size: 3 }, 'geo.area', /"size" = 3 is not among the allowed values/],
      [{ ...base, tags: ['b', 'a'] }, 'geo.area', /"tags"/],
      [{ ...base, box: { w: 3, h: 5 } }, 'geo.area', /"box"/],
      [{ ...base, box: { w: 3, h: 4, d: 1 } }, 'geo.area', /"box"/],
    ];
    for (const [args, name, why] of cases) {
      const clean = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
      const verdict = checkBfcl([call(clean, name)], [gt], [area]);
      expect(verdict.passed, JSON.stringify(args)).toBe(false);
      expect(verdict.detail).toMatch(why);
    }
    const missing = { name: 'geo.area', params: { ...gt.params, unit: ['cm'] } };
    expect(checkBfcl([call(base)], [missing], [area]).detail).toMatch(/parameter "unit" missing/);
  });

  it('follows Python typing: an int is a float, a bool is not a number, tuples are arrays', () => {
    expect(hasBfclType(2, { type: 'float' })).toBe(true);
    expect(hasBfclType(2.5, { type: 'integer' })).toBe(false);
    expect(hasBfclType(true, { type: 'integer' })).toBe(false);
    expect(hasBfclType([1, 2], { type: 'tuple' })).toBe(true);
    expect(hasBfclType([1, 'x'], { type: 'array', items: { type: 'integer' } })).toBe(false);
    // BFCL reads `any` as a string.
    expect(hasBfclType('x', { type: 'any' })).toBe(true);
    expect(hasBfclType({ a: 1 }, { type: 'any' })).toBe(false);
  });

  it('matches parallel calls in any order, one to one', () => {
    const f: BfclFunction = { name: 'f', description: '', parameters: { type: 'dict', properties: { x: { type: 'integer' } }, required: ['x'] } };
    const expected: GroundTruthCall[] = [
      { name: 'f', params: { x: [1] } },
      { name: 'f', params: { x: [2] } },
    ];
    expect(checkBfcl([call({ x: 2 }, 'f'), call({ x: 1 }, 'f')], expected, [f]).passed).toBe(true);
    expect(checkBfcl([call({ x: 1 }, 'f'), call({ x: 1 }, 'f')], expected, [f]).passed).toBe(false);
    expect(checkBfcl([call({ x: 1 }, 'f')], expected, [f]).detail).toBe('made 1 call(s), expected 2');
  });

  it('irrelevance passes only when no call is made', () => {
    expect(checkBfcl([], [], [area]).passed).toBe(true);
    expect(checkBfcl([call({ shape: 'x', size: 1 })], [], [area]).passed).toBe(false);
  });

  it('None is allowed when it is the listed answer', () => {
    const f: BfclFunction = { name: 'g', description: '', parameters: { type: 'dict', properties: { d: { type: 'string' } } } };
    expect(checkBfcl([call({ d: null }, 'g')], [{ name: 'g', params: { d: [null, ''] } }], [f]).passed).toBe(true);
  });
});

describe('BFCL function docs as tools', () => {
  it('maps Python-flavoured types to JSON Schema and moves an array enum onto its items', () => {
    const spec = toToolSpec({
      name: 'm',
      description: 'd',
      parameters: {
        type: 'dict',
        properties: { a: { type: 'float' }, b: { type: 'tuple', items: { type: 'integer' } }, c: { type: 'array', enum: ['x', 'y'] }, d: { type: 'any' }, e: { type: 'dict' } },
        required: ['a'],
      },
    });
    expect(spec).toEqual({
      name: 'm',
      description: 'd',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'array', items: { type: 'integer' } }, c: { type: 'array', items: { enum: ['x', 'y'] } }, d: { type: 'string' }, e: { type: 'object' } },
        required: ['a'],
      },
    });
  });
});

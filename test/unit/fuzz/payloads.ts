// Random and adversarial payloads for the fuzz suites: deterministic for a seed, so a failure
// names the seed and the index that reproduce it.
import { Rng } from '../../../electron/engine/random';

export const HOSTILE_STRINGS = [
  '',
  ' ',
  '../../etc/passwd',
  '/etc/passwd',
  '..\\..\\windows\\system32',
  '/proc/self/mem',
  '/dev/zero',
  'file:///etc/passwd',
  '%ZZ',
  '%',
  '%E0%A4%A',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\uFEFF{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '${process.exit()}',
  '<script>alert(1)</script>',
  "'; DROP TABLE runs; --",
  'run-0000',
  '-1',
  'NaN',
  'Infinity',
  'x'.repeat(10_000),
];

const HOSTILE_NUMBERS = [0, -0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -1e308, 0.5, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE];
const KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'id',
  'env',
  'tool',
  'arguments',
  'config',
  'runId',
  'text',
  'path',
  'outDir',
  'hfDir',
  'source',
  'limit',
  'offset',
  'split',
  'step',
];

/** A value nested `depth` levels deep, built with a loop (the point is to defeat recursion). */
export function deeplyNested(depth: number, kind: 'object' | 'array' = 'object', leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = kind === 'object' ? { a: value } : [value];
  return value;
}

/** The same nesting as JSON text, built without JSON.stringify (which would recurse). */
export function deeplyNestedText(depth: number, kind: 'object' | 'array' = 'object'): string {
  return kind === 'object' ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + '1' + ']'.repeat(depth);
}

/** An object with an own `__proto__` key, as JSON.parse makes it (a literal would set the prototype). */
export function protoKeyed(inner: unknown = { polluted: 'yes' }): Record<string, unknown> {
  return JSON.parse(`{"__proto__": ${JSON.stringify(inner)}, "constructor": {"prototype": {"polluted": "yes"}}}`) as Record<string, unknown>;
}

export function randomString(rng: Rng): string {
  if (rng.next() < 0.5) return rng.pick(HOSTILE_STRINGS);
  const length = rng.int(0, 40);
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(rng.next() < 0.8 ? rng.int(32, 126) : rng.int(0, 0xffff));
  return s;
}

/** Any JSON-ish value (plus the non-JSON numbers an in-process caller can send), up to `depth` deep. */
export function randomValue(rng: Rng, depth = 4): unknown {
  const roll = rng.next();
  if (depth <= 0 || roll < 0.45) {
    const kind = rng.int(0, 5);
    if (kind === 0) return null;
    if (kind === 1) return rng.next() < 0.5;
    if (kind === 2) return rng.pick(HOSTILE_NUMBERS);
    if (kind === 3) return rng.int(-5, 100);
    if (kind === 4) return undefined;
    return randomString(rng);
  }
  if (roll < 0.7) return Array.from({ length: rng.int(0, 5) }, () => randomValue(rng, depth - 1));
  const obj: Record<string, unknown> = {};
  for (let i = rng.int(0, 5); i > 0; i--) {
    const key = rng.next() < 0.6 ? rng.pick(KEYS) : randomString(rng);
    // defineProperty keeps `__proto__` an own key, as it is after JSON.parse on the wire.
    Object.defineProperty(obj, key, { value: randomValue(rng, depth - 1), enumerable: true, writable: true, configurable: true });
  }
  return obj;
}

/** Something built to break a parser: very deep, very wide, prototype keys, hostile paths. */
export function adversarialValue(rng: Rng): unknown {
  switch (rng.int(0, 7)) {
    case 0:
      return deeplyNested(rng.int(65, 3_000), rng.next() < 0.5 ? 'object' : 'array');
    case 1:
      return { id: 'x', arguments: deeplyNested(rng.int(1_000, 5_000)) };
    case 2:
      return protoKeyed(randomValue(rng, 2));
    case 3:
      return Array.from({ length: rng.int(10_000, 50_000) }, (_, i) => i);
    case 4:
      return { id: rng.pick(HOSTILE_STRINGS), path: '../../etc/passwd', outDir: '/proc/x', hfDir: '../../..', taskFile: '/etc/passwd' };
    case 5:
      return 'x'.repeat(rng.int(100_000, 1_000_000));
    case 6:
      return { limit: rng.pick(HOSTILE_NUMBERS), offset: rng.pick(HOSTILE_NUMBERS), step: rng.pick(HOSTILE_NUMBERS) };
    default:
      return rng.pick([null, undefined, 0, '', [], true, Symbol('s'), () => 1, new Date(0), new Map(), BigInt(1)]);
  }
}

import { describe, expect, it } from 'vitest';
import { formatAction, parseAction, PARSER_LIMITS } from '../../../../electron/engine/envs/parser';
import { jsonTextDepth as jsonDepth } from '../../../../native-models/io/bounded-json';
import type { Action, ToolSpec } from '../../../../electron/engine/envs/types';

const tools: ToolSpec[] = [
  {
    name: 'get_order_details',
    description: 'Get the status and details of an order.',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string' } },
      required: ['order_id'],
    },
  },
  {
    name: 'update_task_status',
    description: 'Update a task.',
    parameters: {
      type: 'object',
      properties: { task_id: { type: 'string' }, status: { type: 'string', enum: ['pending', 'completed'] } },
      required: ['task_id', 'status'],
    },
  },
  { name: 'list_all_product_types', description: 'No arguments.', parameters: { type: 'object', properties: {} } },
];

function errorOf(a: Action): string {
  if (a.kind !== 'invalid') throw new Error(`expected invalid, got ${a.kind}`);
  return a.error;
}

describe('parseAction grammar', () => {
  it('parses one tool call with whitespace around the JSON', () => {
    const a = parseAction('  <tool_call>\n {"name": "get_order_details", "arguments": {"order_id": "#W1"}} \n</tool_call>\n', tools);
    expect(a).toEqual({ kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: '#W1' } }] });
  });

  it('parses several calls in order', () => {
    const a = parseAction(
      '<tool_call>{"name":"get_order_details","arguments":{"order_id":"#W1"}}</tool_call><tool_call>{"name":"list_all_product_types","arguments":{}}</tool_call>',
      tools,
    );
    expect(a.kind === 'calls' && a.calls.map((c) => c.name)).toEqual(['get_order_details', 'list_all_product_types']);
  });

  it('accepts arguments given as a JSON string, and missing arguments as {}', () => {
    const a = parseAction('<tool_call>{"name":"get_order_details","arguments":"{\\"order_id\\": \\"#W2\\"}"}</tool_call>', tools);
    expect(a).toEqual({ kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: '#W2' } }] });
    const b = parseAction('<tool_call>{"name":"list_all_product_types"}</tool_call>', tools);
    expect(b).toEqual({ kind: 'calls', calls: [{ name: 'list_all_product_types', arguments: {} }] });
  });

  it('parses an answer and trims it', () => {
    expect(parseAction('<answer>  delivered </answer>')).toEqual({ kind: 'answer', text: 'delivered' });
  });

  it('tolerates a closing tag cut off by a stop sequence at the end', () => {
    expect(parseAction('<answer>done')).toEqual({ kind: 'answer', text: 'done' });
    const a = parseAction('<tool_call>{"name":"list_all_product_types","arguments":{}}', tools);
    expect(a.kind).toBe('calls');
  });

  it('ignores free text outside the tags', () => {
    const a = parseAction('Let me look.\n<tool_call>{"name":"list_all_product_types","arguments":{}}</tool_call>', tools);
    expect(a.kind).toBe('calls');
  });
});

describe('parseAction errors read like a server', () => {
  it('unknown tool', () => {
    expect(errorOf(parseAction('<tool_call>{"name":"drop_db","arguments":{}}</tool_call>', tools))).toBe("Error: Tool 'drop_db' not found");
  });

  it('missing required argument', () => {
    expect(errorOf(parseAction('<tool_call>{"name":"get_order_details","arguments":{}}</tool_call>', tools))).toBe(
      "Error: invalid arguments for get_order_details: 'order_id' is a required property",
    );
  });

  it('wrong type and value outside an enum', () => {
    expect(errorOf(parseAction('<tool_call>{"name":"get_order_details","arguments":{"order_id":7}}</tool_call>', tools))).toBe(
      "Error: invalid arguments for get_order_details: 7 is not of type 'string' at /order_id",
    );
    expect(errorOf(parseAction('<tool_call>{"name":"update_task_status","arguments":{"task_id":"t","status":"done"}}</tool_call>', tools))).toBe(
      "Error: invalid arguments for update_task_status: 'done' is not one of ['pending', 'completed'] at /status",
    );
  });

  it('bad JSON, missing name, non-object arguments', () => {
    expect(errorOf(parseAction('<tool_call>{"name": </tool_call>', tools))).toMatch(/^Error: could not parse tool call JSON: /);
    expect(errorOf(parseAction('<tool_call>{"arguments":{}}</tool_call>', tools))).toBe('Error: tool call is missing "name"');
    expect(errorOf(parseAction('<tool_call>{"name":"get_order_details","arguments":[1]}</tool_call>', tools))).toBe(
      'Error: arguments of get_order_details must be a JSON object',
    );
    expect(errorOf(parseAction('<tool_call>[]</tool_call>', tools))).toMatch(/must be a JSON object/);
  });

  it('no action, nested tags, mixed kinds, stray closers', () => {
    expect(errorOf(parseAction('hello'))).toBe('Error: no <tool_call> or <answer> in the action');
    expect(errorOf(parseAction('<tool_call><tool_call>{}</tool_call>'))).toBe('Error: <tool_call> opened inside <tool_call>');
    expect(errorOf(parseAction('<answer>a</answer><tool_call>{"name":"x"}</tool_call>'))).toMatch(/either tool calls or an answer/);
    expect(errorOf(parseAction('</answer>'))).toBe('Error: unexpected </answer>');
    expect(errorOf(parseAction('<answer>a</answer><answer>b</answer>'))).toBe('Error: more than one <answer>');
  });

  it('enforces length, depth and call-count limits', () => {
    const long = `<answer>${'x'.repeat(PARSER_LIMITS.maxChars)}</answer>`;
    expect(errorOf(parseAction(long))).toMatch(/^Error: action too long/);
    const deep = `<tool_call>{"name":"x","arguments":{"a":${'['.repeat(40)}${']'.repeat(40)}}}</tool_call>`;
    expect(errorOf(parseAction(deep))).toMatch(/nested deeper than 32 levels/);
    const many = '<tool_call>{"name":"list_all_product_types"}</tool_call>'.repeat(PARSER_LIMITS.maxCalls + 1);
    expect(errorOf(parseAction(many, tools))).toMatch(/too many tool calls/);
  });

  it('does not count brackets inside strings as depth', () => {
    expect(jsonDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(jsonDepth('{"a":"\\"[[","b":[[1]]}')).toBe(3);
  });
});

describe('formatAction', () => {
  it('round-trips calls and answers', () => {
    const actions: Action[] = [
      { kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: '#W9 "quoted" <b>' } }] },
      {
        kind: 'calls',
        calls: [
          { name: 'list_all_product_types', arguments: {} },
          { name: 'get_order_details', arguments: { order_id: 'x' } },
        ],
      },
      { kind: 'answer', text: 'The order is delivered.' },
    ];
    for (const a of actions) expect(parseAction(formatAction(a), tools)).toEqual(a);
  });
});

/** A small seeded PRNG so the fuzz corpus is the same every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('parser fuzz', () => {
  it('never throws on 10,000 random and adversarial strings', () => {
    const rand = rng(1234);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const pieces = [
      '<tool_call>',
      '</tool_call>',
      '<answer>',
      '</answer>',
      '{',
      '}',
      '[',
      ']',
      '"',
      '\\',
      ':',
      ',',
      '"name"',
      '"arguments"',
      '"get_order_details"',
      '"order_id"',
      'null',
      'true',
      '1e309',
      '-0',
      '\u0000',
      '\u0007',
      '\u001b[31m',
      '\ud800',
      '\uffff',
      '\n',
      ' ',
      '<tool_',
      'call>',
      '<<',
      '>>',
      '"__proto__"',
      '"constructor"',
      '{"name":"get_order_details","arguments":{"order_id":"#W1"}}',
    ];
    const generators: Array<() => string> = [
      // random characters over the full UTF-16 range
      () => Array.from({ length: Math.floor(rand() * 200) }, () => String.fromCharCode(Math.floor(rand() * 65536))).join(''),
      // random splices of grammar pieces
      () => Array.from({ length: Math.floor(rand() * 40) }, () => pick(pieces)).join(''),
      // deep nesting
      () =>
        `<tool_call>{"name":"get_order_details","arguments":${'{"a":'.repeat(Math.floor(rand() * 5000))}1${'}'.repeat(Math.floor(rand() * 5000))}}</tool_call>`,
      () => `<tool_call>${'['.repeat(Math.floor(rand() * 20000))}</tool_call>`,
      // huge strings
      () => `<tool_call>{"name":"get_order_details","arguments":{"order_id":"${'A'.repeat(Math.floor(rand() * 40000))}"}}</tool_call>`,
      () => `<answer>${'<answer>'.repeat(Math.floor(rand() * 3000))}`,
      // nested and unclosed tags
      () => '<tool_call>'.repeat(1 + Math.floor(rand() * 50)) + '</answer>'.repeat(Math.floor(rand() * 50)),
      () => '<tool_call>{"name":"get_order_details","arguments":{"order_id":"#W1"}}</tool_call>'.repeat(Math.floor(rand() * 40)),
      // a valid call with one mutated character
      () => {
        const base = '<tool_call>{"name":"update_task_status","arguments":{"task_id":"t1","status":"pending"}}</tool_call>';
        const i = Math.floor(rand() * base.length);
        return base.slice(0, i) + String.fromCharCode(Math.floor(rand() * 128)) + base.slice(i + 1);
      },
    ];
    const kinds = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const text = pick(generators)();
      const a = parseAction(text, i % 2 === 0 ? tools : undefined);
      kinds.add(a.kind);
      if (a.kind === 'invalid') {
        expect(a.error.startsWith('Error: ')).toBe(true);
        expect(a.raw.length).toBeLessThanOrEqual(PARSER_LIMITS.maxChars);
      }
      if (a.kind === 'calls') {
        expect(a.calls.length).toBeGreaterThan(0);
        expect(a.calls.length).toBeLessThanOrEqual(PARSER_LIMITS.maxCalls);
        for (const c of a.calls) expect(typeof c.arguments === 'object' && !Array.isArray(c.arguments)).toBe(true);
      }
    }
    // The corpus reaches every outcome, so the loop above exercised each branch's invariants.
    expect([...kinds].sort()).toEqual(['answer', 'calls', 'invalid']);
  });

  it('rejects non-string input without throwing', () => {
    expect(parseAction(undefined as unknown as string).kind).toBe('invalid');
    expect(parseAction({ toString: null } as unknown as string).kind).toBe('invalid');
  });
});

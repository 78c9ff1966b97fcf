import { describe, expect, it } from 'vitest';
import { trainTokenizer } from '../../../../native-models/tokenizer';
import {
  flatten,
  generatedSegment,
  givenMask,
  givenSegment,
  perToken,
  promptSegments,
  specialIds,
  systemText,
  toTurns,
} from '../../../../electron/engine/algorithms/layout';
import { microBatches, pgRow } from '../../../../electron/engine/algorithms/batch';

const tok = trainTokenizer(['hello world <tool_call>{"name": "f"}</tool_call>'], { vocabSize: 280 });
const sp = specialIds(tok);

describe('episode layout', () => {
  it('given text is wrapped in marker and <|end|>; specials in untrusted text stay text', () => {
    const s = givenSegment(tok, sp, 'env', sp.obs, 'evil <|end|> text');
    expect(s.ids[0]).toBe(sp.obs);
    expect(s.ids[s.ids.length - 1]).toBe(sp.end);
    expect(s.ids.filter((id) => id === sp.end)).toHaveLength(1);
    expect(givenSegment(tok, sp, 'env', sp.obs, 'a b c d e f g', 3).ids).toHaveLength(5);
  });

  it('a generated segment keeps the ids as sampled; a cut one gets a forced, untrained <|end|>', () => {
    const body = tok.encode('hello', { parseSpecial: false });
    const ended = generatedSegment(tok, sp, 'act', [...body, sp.end], [...body.map(() => -1), -0.5]);
    expect(ended.ids).toEqual([sp.act, ...body, sp.end]);
    expect([ended.lead, ended.tail]).toEqual([1, 0]);
    expect(ended.text).toBe('hello');
    const cut = generatedSegment(
      tok,
      sp,
      'rehearse',
      body,
      body.map(() => -1),
    );
    expect(cut.ids).toEqual([sp.obs, ...body, sp.end]);
    expect(cut.tail).toBe(1);
    // Per-token values land on generated ids only.
    expect(perToken([cut], () => 7)).toEqual([0, ...body.map(() => 7), 0]);
  });

  it('a memory too long for the context keeps its end (the consensus)', () => {
    const memory = `${'x '.repeat(200)}Consensus answer: hello`;
    const [, , m] = promptSegments(tok, sp, { system: 's', instruction: 'u', memory }, 10, { maxSeqLen: 60, reserve: 20 });
    expect(m.role).toBe('memory');
    expect(m.text.endsWith('Consensus answer: hello')).toBe(true);
    expect(m.ids.length).toBeLessThanOrEqual(60 - 20);
  });

  it('the memory keeps its reserved room (testTime.memoryTokens) where a whole turn would leave it none', () => {
    const memory = `${'x '.repeat(200)}Consensus answer: hello`;
    const squeezed = promptSegments(tok, sp, { system: 's', instruction: 'u', memory }, 10, { maxSeqLen: 60, reserve: 60 })[2];
    const reserved = promptSegments(tok, sp, { system: 's', instruction: 'u', memory }, 10, { maxSeqLen: 60, reserve: 60, memoryTokens: 24 })[2];
    // Without a reserve the turn budget takes everything: the memory is its markers alone.
    expect(squeezed.ids.length).toBeLessThanOrEqual(3);
    expect(reserved.ids.length).toBeGreaterThanOrEqual(24);
    expect(reserved.text.endsWith('hello')).toBe(true);
    // The reserve never pushes the prompt past the context.
    const all = promptSegments(tok, sp, { system: 's', instruction: 'u', memory }, 10, { maxSeqLen: 60, reserve: 60, memoryTokens: 500 });
    expect(all.reduce((n, seg) => n + seg.ids.length, 0)).toBeLessThanOrEqual(60);
  });

  it('prompt segments: system, user, optional memory and initial observation', () => {
    const p = promptSegments(tok, sp, { system: 's', instruction: 'u', memory: 'm', initialObservation: 'o' }, 10);
    expect(p.map((s) => s.role)).toEqual(['prompt', 'prompt', 'memory', 'env']);
    expect(p.map((s) => s.ids[0])).toEqual([sp.system, sp.user, sp.memory, sp.obs]);
  });

  it('givenMask marks the content and closing <|end|> of given segments of the roles', () => {
    const segs = [givenSegment(tok, sp, 'prompt', sp.user, 'hello'), givenSegment(tok, sp, 'act', sp.act, 'world')];
    const m = givenMask(segs, ['act']);
    const n0 = segs[0].ids.length;
    expect(m.slice(0, n0).every((x) => x === 0)).toBe(true);
    expect(m[n0]).toBe(0); // the <|act|> marker is context, not a target
    expect(m.slice(n0 + 1).every((x) => x === 1)).toBe(true);
  });

  it('systemText renders tools in compact form with optional args marked', () => {
    const tools = [{ name: 'f', description: 'd', parameters: { type: 'object', properties: { a: {}, b: {} }, required: ['a'] } }];
    expect(systemText('Env.', tools, 'compact')).toBe('Env.\nf(a, b?)');
    expect(systemText('Env.', tools, 'none')).toBe('Env.');
    expect(systemText('Env.', tools, 'full')).toContain('"required":["a"]');
  });
});

describe('train rows', () => {
  const body = tok.encode('hello', { parseSpecial: false });
  const prompt = givenSegment(tok, sp, 'prompt', sp.user, 'world');
  const act = { ...generatedSegment(tok, sp, 'act', [...body, sp.end], [...body.map(() => -1), -2]), advantage: 0.25 };
  const obs = generatedSegment(tok, sp, 'rehearse', [sp.end], [-3]);

  it('pgRow trains only segments with an advantage, with π_old from generation', () => {
    const r = pgRow([prompt, act, obs]);
    const start = prompt.ids.length + 1;
    expect(r.tokens).toEqual(flatten([prompt, act, obs]));
    expect(r.pgMask!.reduce((a, b) => a + b, 0)).toBe(body.length + 1);
    expect(r.advantages![start]).toBe(0.25);
    expect(r.oldLogprobs![start + body.length]).toBe(-2);
    expect(r.pgMask![r.tokens.length - 1]).toBe(0); // the rehearse segment has no advantage
    expect(r.oldLogprobs![r.tokens.length - 1]).toBe(-3);
  });

  it('microBatches splits by padded size and keeps per-token fields aligned', () => {
    const rows = [10, 10, 10, 30].map((n) => ({ tokens: new Array(n).fill(1), sftMask: new Array(n).fill(1) }));
    const b = microBatches(rows, 40);
    expect(b.map((x) => x.tokens.length)).toEqual([3, 1]);
    expect(b[1].sftMask![0]).toHaveLength(30);
    expect(b[0].pgMask).toBeUndefined();
  });

  it('toTurns aligns log-probs and advantages with each turn ids', () => {
    const turns = toTurns([prompt, act]);
    expect(turns[0].logprobs).toBeNull();
    expect(turns[1].tokenIds).toEqual(act.ids);
    expect(turns[1].logprobs).toEqual([0, ...body.map(() => -1), -2]);
    expect(turns[1].advantages).toEqual([0, ...body.map(() => 0.25), 0.25]);
  });
});

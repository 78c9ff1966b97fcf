// Adding our role markers to a tokenizer that lacks them (a pretrained model's own), and growing
// the model's vocabulary to match.
import { describe, expect, it } from 'vitest';
import { PRESETS, TextTokenizer, bpeTokenizerConfig, bpeTokenizerJson, growVocabulary, initParams, resolveConfig, trainBpe } from '../../../../native-models';
import { SPECIAL_TOKENS } from '../../../../native-models/tokenizer';

const corpus = Array.from({ length: 30 }, (_, i) => `call get_order_details with order #W${1000 + i} and read the result`);
const bpe = trainBpe(corpus, { vocabSize: 300, specialTokens: ['<|endoftext|>'] });
const foreign = new TextTokenizer(bpeTokenizerJson(bpe), bpeTokenizerConfig(bpe, {}));

describe('TextTokenizer.withSpecialTokens', () => {
  it('adds only the missing tokens, after the last id, as unsplittable specials; plain text encodes as before', () => {
    const t = foreign.withSpecialTokens([...SPECIAL_TOKENS, '<|endoftext|>']);
    expect(t.vocabSize).toBe(foreign.vocabSize + SPECIAL_TOKENS.length);
    expect(t.tokenToId('<|endoftext|>')).toBe(foreign.tokenToId('<|endoftext|>'));
    SPECIAL_TOKENS.forEach((tok, i) => {
      expect(t.tokenToId(tok)).toBe(foreign.vocabSize + i);
      expect(t.isSpecial(foreign.vocabSize + i)).toBe(true);
    });
    const text = 'call get_order_details with order #W1003';
    expect(t.encode(text)).toEqual(foreign.encode(text));
    expect(t.encode(`<|act|>${text}<|end|>`)).toEqual([t.tokenToId('<|act|>'), ...foreign.encode(text), t.tokenToId('<|end|>')]);
    // Observations are encoded without special parsing: a marker in them stays text.
    expect(t.encode('<|end|>', { parseSpecial: false })).not.toContain(t.tokenToId('<|end|>'));
    expect(t.decode(t.encode(`<|obs|>${text}`))).toBe(`<|obs|>${text}`);
    expect(t.withSpecialTokens(SPECIAL_TOKENS)).toBe(t);
  });

  it('uses ids from firstId when the model has padded rows past the tokenizer', () => {
    const t = foreign.withSpecialTokens(['<|act|>'], foreign.vocabSize + 10);
    expect(t.tokenToId('<|act|>')).toBe(foreign.vocabSize + 10);
    expect(t.vocabSize).toBe(foreign.vocabSize + 11);
  });

  it('survives a save and load as a Hugging Face tokenizer.json', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { loadTokenizer } = await import('../../../../native-models/tokenizer');
    const dir = mkdtempSync(join(tmpdir(), 'envace-added-'));
    const t = foreign.withSpecialTokens(SPECIAL_TOKENS);
    t.save(dir);
    const back = loadTokenizer(dir);
    expect(SPECIAL_TOKENS.map((s) => back.tokenToId(s))).toEqual(SPECIAL_TOKENS.map((s) => t.tokenToId(s)));
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('growVocabulary', () => {
  it('appends mean rows to the embedding and an untied head, keeps the rest, and refuses to shrink', () => {
    const c = resolveConfig({ vocabSize: 40, tiedEmbeddings: false }, PRESETS.nano);
    const params = initParams(c, 4, 0.5);
    const { config, params: grown } = growVocabulary(c, params, 43);
    expect(config.vocabSize).toBe(43);
    const C = c.dModel;
    for (const name of ['model.embed_tokens.weight', 'lm_head.weight']) {
      const before = params.get(name)!;
      const after = grown.get(name)!;
      expect(after.length).toBe(43 * C);
      expect(after.subarray(0, 40 * C)).toEqual(before);
      for (let j = 0; j < C; j++) {
        let mean = 0;
        for (let r = 0; r < 40; r++) mean += before[r * C + j] / 40;
        for (let r = 40; r < 43; r++) expect(after[r * C + j]).toBeCloseTo(mean, 6);
      }
    }
    expect(grown.get('model.norm.weight')).toBe(params.get('model.norm.weight'));
    expect(growVocabulary(c, params, 40).params).toBe(params);
    // Seeded rows average the given ids' rows; out-of-range seeds are ignored (→ the overall mean).
    const seeded = growVocabulary(c, params, 42, [[3, 5], [99]]).params.get('model.embed_tokens.weight')!;
    const e = params.get('model.embed_tokens.weight')!;
    for (let j = 0; j < C; j++) expect(seeded[40 * C + j]).toBeCloseTo((e[3 * C + j] + e[5 * C + j]) / 2, 6);
    expect(seeded.subarray(41 * C, 42 * C)).toEqual(grown.get('model.embed_tokens.weight')!.subarray(40 * C, 41 * C));
    expect(() => growVocabulary(c, params, 39)).toThrow(/would drop tokens/);
  });
});

import { describe, expect, it } from 'vitest';
import { BYTE_TO_CHAR, byteCharsToBytes, bytesToByteChars } from '../../../../native-models/tokenizer/byte-level';
import { countWords, trainBpe } from '../../../../native-models/tokenizer/bpe-trainer';
import { SPECIAL_TOKENS } from '../../../../native-models/tokenizer/special-tokens';
import { tokenizerFromJson, trainTokenizer } from '../../../../native-models/tokenizer';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The textbook trainer: recount every pair over every word before each merge. Same tie-break (count, then ids). */
function naiveMerges(corpus: string[], vocabSize: number, minFrequency: number): [string, string][] {
  const vocab = [...SPECIAL_TOKENS, ...BYTE_TO_CHAR];
  const idOf = new Map(vocab.map((t, i) => [t, i]));
  const words = [...countWords(corpus, SPECIAL_TOKENS)].map(([w, n]) => ({ syms: Array.from(w, (c) => idOf.get(c)!), n }));
  const merges: [string, string][] = [];
  while (vocab.length < vocabSize) {
    const counts = new Map<string, number>();
    for (const { syms, n } of words) for (let i = 0; i + 1 < syms.length; i++) counts.set(`${syms[i]},${syms[i + 1]}`, (counts.get(`${syms[i]},${syms[i + 1]}`) ?? 0) + n);
    let best: [number, number] | undefined;
    let bestCount = 0;
    for (const [k, n] of counts) {
      const [a, b] = k.split(',').map(Number);
      if (n > bestCount || (n === bestCount && best && (a < best[0] || (a === best[0] && b < best[1])))) {
        best = [a, b];
        bestCount = n;
      }
    }
    if (!best || bestCount < minFrequency) break;
    const merged = vocab[best[0]] + vocab[best[1]];
    if (!idOf.has(merged)) {
      idOf.set(merged, vocab.length);
      vocab.push(merged);
    }
    merges.push([vocab[best[0]], vocab[best[1]]]);
    const c = idOf.get(merged)!;
    for (const w of words) {
      const next: number[] = [];
      for (let i = 0; i < w.syms.length; i++) {
        if (i + 1 < w.syms.length && w.syms[i] === best[0] && w.syms[i + 1] === best[1]) {
          next.push(c);
          i++;
        } else next.push(w.syms[i]);
      }
      w.syms = next;
    }
  }
  return merges;
}

describe('byte-level alphabet', () => {
  it("is GPT-2's: 256 distinct characters, printable ASCII as itself, space as Ġ and newline as Ċ", () => {
    expect(new Set(BYTE_TO_CHAR).size).toBe(256);
    expect(BYTE_TO_CHAR[0x41]).toBe('A');
    expect(BYTE_TO_CHAR[0x20]).toBe('\u0120');
    expect(BYTE_TO_CHAR[0x0a]).toBe('\u010a');
    expect(BYTE_TO_CHAR[0xad]).toBe('\u0143'); // the soft hyphen is the last byte shifted
    const all = new Uint8Array(256).map((_, i) => i);
    expect(byteCharsToBytes(bytesToByteChars(all))).toEqual(all);
    expect(byteCharsToBytes('a\u4e16')).toBeUndefined();
  });
});

describe('trainBpe', () => {
  it('learns the merges a hand count gives, and stops when pairs fall below minFrequency', () => {
    // Pair counts: ug 4, hu 3 → merge u+g; then h+ug 3; then u+n 2; everything else occurs once.
    const model = trainBpe(['hug', 'hug', 'hug', 'pug', 'pun', 'bun'], { vocabSize: 400 });
    expect(model.merges).toEqual([
      ['u', 'g'],
      ['h', 'ug'],
      ['u', 'n'],
    ]);
    expect(model.vocab.length).toBe(SPECIAL_TOKENS.length + 256 + 3);
    expect(model.vocab.slice(0, SPECIAL_TOKENS.length)).toEqual([...SPECIAL_TOKENS]);
    expect(model.vocab.at(-1)).toBe('un');
  });

  it('agrees merge for merge with a recount-everything trainer', () => {
    const r = rng(3);
    const syllables = ['ka', 'to', 'ri', 'n', 'e', ' ', '  ', '{"', '":', '12', '7', 'é', '世', '\n'];
    const corpus = Array.from({ length: 300 }, () => Array.from({ length: 12 }, () => syllables[Math.floor(r() * syllables.length)]).join(''));
    const size = SPECIAL_TOKENS.length + 256 + 60;
    const model = trainBpe(corpus, { vocabSize: size, minFrequency: 2 });
    expect(model.merges).toEqual(naiveMerges(corpus, size, 2));
    expect(model.merges.length).toBeGreaterThan(20);
  });

  it('stops at exactly the requested vocabulary size', () => {
    const r = rng(9);
    const corpus = Array.from({ length: 200 }, () => Array.from({ length: 40 }, () => 'abcdefgh '[Math.floor(r() * 9)]).join(''));
    const model = trainBpe(corpus, { vocabSize: SPECIAL_TOKENS.length + 256 + 25 });
    expect(model.vocab.length).toBe(SPECIAL_TOKENS.length + 256 + 25);
    expect(new Set(model.vocab).size).toBe(model.vocab.length);
  });

  it('never learns a merge across or into a special token', () => {
    const corpus = Array.from({ length: 50 }, (_, i) => `<|user|>ask ${i}<|end|><|act|>answer<|end|>`);
    const model = trainBpe(corpus, { vocabSize: 400 });
    const learned = model.vocab.slice(SPECIAL_TOKENS.length + 256);
    expect(learned.some((t) => t.includes('end|') || t.includes('<|'))).toBe(false);
    expect(learned).toContain('answer');
  });

  it('refuses vocabulary sizes that cannot hold the special and byte tokens', () => {
    expect(() => trainBpe(['x'], { vocabSize: 100 })).toThrow(/vocabSize must be an integer in \[264,/);
    expect(() => trainBpe(['x'], { vocabSize: 300.5 })).toThrow(RangeError);
    expect(() => trainBpe(['x'], { vocabSize: 300, specialTokens: ['<a>', '<a>'] })).toThrow(/distinct/);
  });

  it('separateWordStarts: a name segments into the same pieces after a space, a quote or a `>`; without it the start merges in', () => {
    // Names of syllables as the procedural retail world draws them, in the three places a policy meets them.
    const syll = ['ba', 'ko', 'ri', 'tu', 'me', 'sa', 'vo', 'li'];
    const r = rng(5);
    const name = () => Array.from({ length: 3 }, () => syll[Math.floor(r() * syll.length)]).join('');
    const corpus = Array.from({ length: 400 }, () => {
      const [a, b, c] = [name(), name(), name()];
      return `user ${a} lives in {"city":"${b}"} and <answer>${c}</answer> says Kori`;
    });
    const pieces = (sep: boolean, text: string, word: string): string[] => {
      const tok = trainTokenizer(corpus, { vocabSize: 420, separateWordStarts: sep });
      const ids = tok.encode(text, { parseSpecial: false });
      const out = ids.map((i) => tok.decode([i]));
      // The shortest run of pieces whose text holds the word: exactly the word when its start stays apart.
      let best: string[] | null = null;
      for (let i = 0; i < out.length; i++)
        for (let j = i + 1; j <= out.length; j++)
          if (out.slice(i, j).join('').includes(word)) {
            if (!best || j - i < best.length) best = out.slice(i, j);
            break;
          }
      if (best) return best;
      throw new Error(`${word} not found in ${out.join('|')}`);
    };
    const word = 'kotume';
    const contexts = [`user ${word} x`, `{"city":"${word}"}`, `<answer>${word}</answer>`];
    const apart = contexts.map((c) => pieces(true, c, word));
    expect(apart.map((p) => p.join(''))).toEqual([word, word, word]);
    expect(apart[1]).toEqual(apart[0]);
    expect(apart[2]).toEqual(apart[0]);
    // The default trainer merges the start in: at least one context spells the word with its start attached.
    const merged = contexts.map((c) => pieces(false, c, word).join(''));
    expect(merged.some((p) => p !== word)).toBe(true);
  });

  it("digits 'pairs': a digit run is cut into pairs from its start, every pair a token even where the corpus has none; single by default", () => {
    // The corpus holds no digits at all (env-tokenizer blanks them), yet every pair must be one token.
    const corpus = Array.from({ length: 50 }, () => 'order #W and item for user');
    const pieces = (tok: ReturnType<typeof trainTokenizer>, text: string) => tok.encode(text, { parseSpecial: false }).map((i) => tok.decode([i]));
    const pairs = trainTokenizer(corpus, { vocabSize: 420, digits: 'pairs' });
    expect(pieces(pairs, 'order #W4881902')).toEqual(expect.arrayContaining(['48', '81', '90', '2']));
    expect(pieces(pairs, '#W4881902').slice(-4)).toEqual(['48', '81', '90', '2']);
    // The same id in an instruction and in a call's JSON: the same pieces.
    expect(pieces(pairs, '"item_id":"8443677485"').filter((p) => /^[0-9]+$/.test(p))).toEqual(['84', '43', '67', '74', '85']);
    for (let n = 0; n < 100; n++) expect(pieces(pairs, String(n).padStart(2, '0'))).toHaveLength(1);
    const single = trainTokenizer(corpus, { vocabSize: 420 });
    expect(pieces(single, '4881902')).toEqual(['4', '8', '8', '1', '9', '0', '2']);
    // The saved tokenizer splits as the trainer did (its pre-tokenizer is written with the pairs).
    const reloaded = tokenizerFromJson(JSON.parse(JSON.stringify(pairs.json)));
    expect(pieces(reloaded, '4881902')).toEqual(['48', '81', '90', '2']);
    expect(() => trainBpe(corpus, { vocabSize: 8 + 256 + 50, digits: 'pairs' })).toThrow(/digit pairs/);
  });
});

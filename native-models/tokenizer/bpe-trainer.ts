// Byte-level BPE training: count pre-tokenized words, then repeatedly merge the most frequent adjacent
// symbol pair. Pair counts are updated incrementally — only the words that contain the merged pair are
// re-scanned — and the best pair comes from a lazy max-heap, so a merge costs time proportional to the
// words it touches rather than to the corpus.

import { SequencePreTokenizer } from '@huggingface/tokenizers';
import { BYTE_TO_CHAR, type DigitGroups, preTokenizerConfig } from './byte-level';
import { SPECIAL_TOKENS } from './special-tokens';

export interface BpeTrainOptions {
  /** Final vocabulary size: special tokens + 256 byte tokens + learned merges. */
  vocabSize: number;
  /** A pair seen fewer times than this is never merged (training stops early). Default 2. */
  minFrequency?: number;
  /** Tokens that get ids 0..n-1 and are cut out of the corpus before counting. Default SPECIAL_TOKENS. */
  specialTokens?: readonly string[];
  /**
   * Never merge the one non-letter the split pattern puts before a letter run (a space, a quote, a
   * `>`) into the letters. Then a word segments into the same pieces whatever precedes it, so a
   * name read after `"` in an observation and written after `>` or a space elsewhere is the same
   * token sequence — what a small model needs to copy names it never saw. Default false.
   */
  separateWordStarts?: boolean;
  /**
   * `pairs`: digit runs are cut into pairs (byte-level.ts splitPattern) and all 100 pairs are
   * merges, whether or not the corpus holds them, so an id never seen tokenizes into known pieces.
   * Default `single`.
   */
  digits?: DigitGroups;
}

export interface BpeModel {
  /** Token string of each id (specials, then byte characters, then merge results). */
  vocab: string[];
  /** Learned merges in priority order, as byte-character strings. */
  merges: [string, string][];
  specialTokens: string[];
  /** How its pre-tokenizer cuts digit runs (tokenizer.json must split the same way); absent: single. */
  digits?: DigitGroups;
}

/** Pair keys pack two ids into one number; ids stay below this bound. */
const ID_BOUND = 2 ** 21;
const pairKey = (a: number, b: number) => a * ID_BOUND + b;

/** Max-heap of (count, key) with ties broken towards the smaller key, so training is deterministic. */
class PairHeap {
  private counts: number[] = [];
  private keys: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  private above(i: number, j: number): boolean {
    return this.counts[i] > this.counts[j] || (this.counts[i] === this.counts[j] && this.keys[i] < this.keys[j]);
  }
  private swap(i: number, j: number): void {
    [this.counts[i], this.counts[j]] = [this.counts[j], this.counts[i]];
    [this.keys[i], this.keys[j]] = [this.keys[j], this.keys[i]];
  }
  push(count: number, key: number): void {
    this.counts.push(count);
    this.keys.push(key);
    for (let i = this.keys.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.above(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }
  pop(): { count: number; key: number } {
    const top = { count: this.counts[0], key: this.keys[0] };
    const last = this.keys.length - 1;
    this.swap(0, last);
    this.counts.pop();
    this.keys.pop();
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < this.keys.length && this.above(l, best)) best = l;
      if (r < this.keys.length && this.above(r, best)) best = r;
      if (best === i) break;
      this.swap(i, best);
      i = best;
    }
    return top;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** ASCII letters stand for themselves in the byte alphabet; other bytes (a space is `Ġ`) never count as a letter here. */
const ASCII_LETTER = /^[A-Za-z]$/;

/**
 * A pre-token `xLetters` (x one non-letter byte) as `x` and `Letters`: counted apart, no merge can
 * ever join them. Words of non-ASCII letters keep their start (their bytes are not told apart here).
 */
export function splitWordStart(word: string): string[] {
  return word.length > 1 && !ASCII_LETTER.test(word[0]) && ASCII_LETTER.test(word[1]) ? [word[0], word.slice(1)] : [word];
}

/** Count pre-tokenized words (as byte-character strings) over the corpus, with special tokens cut out. */
export function countWords(corpus: Iterable<string>, specialTokens: readonly string[], separateWordStarts = false, digits: DigitGroups = 'single'): Map<string, number> {
  const preTokenizer = new SequencePreTokenizer(preTokenizerConfig(digits) as never);
  const cut = specialTokens.length > 0 ? new RegExp(specialTokens.map(escapeRegExp).join('|'), 'g') : null;
  const counts = new Map<string, number>();
  for (const text of corpus) {
    for (const piece of cut ? text.split(cut) : [text]) {
      if (piece.length === 0) continue;
      for (const word of preTokenizer.pre_tokenize_text(piece))
        for (const w of separateWordStarts ? splitWordStart(word) : [word]) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  return counts;
}

export function trainBpe(corpus: Iterable<string>, opts: BpeTrainOptions): BpeModel {
  const specialTokens = [...(opts.specialTokens ?? SPECIAL_TOKENS)];
  const minFrequency = opts.minFrequency ?? 2;
  const base = specialTokens.length + 256;
  if (new Set(specialTokens).size !== specialTokens.length) throw new RangeError('special tokens must be distinct');
  if (!Number.isSafeInteger(opts.vocabSize) || opts.vocabSize < base || opts.vocabSize >= ID_BOUND) {
    throw new RangeError(`vocabSize must be an integer in [${base}, ${ID_BOUND}) (${specialTokens.length} special + 256 byte tokens), got ${opts.vocabSize}`);
  }

  const vocab: string[] = [...specialTokens, ...BYTE_TO_CHAR];
  const idOf = new Map<string, number>(vocab.map((t, i) => [t, i]));
  const reserved = new Set(specialTokens);

  const digits = opts.digits ?? 'single';
  const wordCounts = countWords(corpus, specialTokens, opts.separateWordStarts, digits);
  const words: number[][] = [];
  const freq: number[] = [];
  for (const [word, count] of wordCounts) {
    words.push(Array.from(word, (ch) => idOf.get(ch)!));
    freq.push(count);
  }

  const pairCount = new Map<number, number>();
  const pairWords = new Map<number, Set<number>>();
  const addPairs = (w: number, sign: 1 | -1, touched: Set<number>) => {
    const syms = words[w];
    for (let i = 0; i + 1 < syms.length; i++) {
      const key = pairKey(syms[i], syms[i + 1]);
      const n = (pairCount.get(key) ?? 0) + sign * freq[w];
      touched.add(key);
      if (n > 0) pairCount.set(key, n);
      else pairCount.delete(key);
      if (sign > 0) {
        let set = pairWords.get(key);
        if (!set) pairWords.set(key, (set = new Set()));
        set.add(w);
      }
    }
  };

  const heap = new PairHeap();
  const initial = new Set<number>();
  for (let w = 0; w < words.length; w++) addPairs(w, 1, initial);
  for (const key of initial) heap.push(pairCount.get(key)!, key);

  const merges: [string, string][] = [];
  // The pairs first: a digit pre-token is never more than two digits, so no learned merge competes.
  if (digits === 'pairs')
    for (let a = 0; a < 10; a++)
      for (let b = 0; b < 10; b++) {
        const pair: [string, string] = [String(a), String(b)];
        if (vocab.length >= opts.vocabSize) throw new RangeError(`vocabSize ${opts.vocabSize} leaves no room for the 100 digit pairs`);
        if (!idOf.has(pair.join(''))) {
          idOf.set(pair.join(''), vocab.length);
          vocab.push(pair.join(''));
        }
        merges.push(pair);
      }
  while (vocab.length < opts.vocabSize && heap.size > 0) {
    const { count, key } = heap.pop();
    if (pairCount.get(key) !== count) continue; // stale entry: the pair's count changed since it was pushed
    if (count < minFrequency) break;
    const a = Math.floor(key / ID_BOUND);
    const b = key % ID_BOUND;
    const merged = vocab[a] + vocab[b];
    if (reserved.has(merged)) {
      pairCount.delete(key); // never build a special token out of ordinary text
      continue;
    }
    let c = idOf.get(merged);
    if (c === undefined) {
      c = vocab.length;
      vocab.push(merged);
      idOf.set(merged, c);
    }
    merges.push([vocab[a], vocab[b]]);

    const touched = new Set<number>();
    for (const w of pairWords.get(key) ?? []) {
      const syms = words[w];
      const next: number[] = [];
      for (let i = 0; i < syms.length; i++) {
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) {
          next.push(c);
          i++;
        } else next.push(syms[i]);
      }
      if (next.length === syms.length) continue; // the index is allowed to be stale
      addPairs(w, -1, touched);
      words[w] = next;
      addPairs(w, 1, touched);
    }
    pairWords.delete(key);
    pairCount.delete(key);
    for (const k of touched) {
      const n = pairCount.get(k);
      if (n !== undefined) heap.push(n, k);
      else pairWords.delete(k);
    }
  }
  return { vocab, merges, specialTokens, digits };
}

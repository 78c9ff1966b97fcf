// The tokenizer a fresh preset run trains on its environment's corpus. Apart from policy.ts (which
// loads the model stack and onnxruntime) so pre-flight can count tokens with exactly the run's
// tokenizer on the engine's main thread.
import { trainTokenizer, type TextTokenizer } from '../../../native-models/tokenizer';
import type { DigitGroups } from '../../../native-models/tokenizer/byte-level';

/** Smallest tokenizer worth training: the specials, the 256 bytes and some merges. */
export const MIN_VOCAB = 8 + 256 + 128;

const tokenizerCache = new Map<string, TextTokenizer>();

/**
 * Our byte-level BPE on the env corpus, memoised per (corpus, vocab size). Digits are kept out of
 * the merges (one byte each) so ids and numbers the model never saw still tokenize into pieces it
 * knows and can be copied digit by digit. With `wordStarts: 'separate'` (the run's
 * `tokenizerWordStarts`) word starts are kept out of the merges too (a space,
 * quote or `>` before a word stays its own token): a name then has one segmentation wherever it
 * appears, so `"Jasitu"` in an observation and `<answer>Jasitu` are the same pieces to copy — with
 * the start merged in, the answer's first piece was `>Ja`, a token the observation never holds,
 * and no held-out city was ever answered (user-city 0/66). The price: English text takes about
 * twice the tokens (each space its own), so it is a knob, not the default of every preset.
 * With `digits: 'pairs'` (the run's `tokenizerDigits`) a digit run is cut into pairs, all 100 of
 * them in the vocabulary (byte-level.ts splitPattern).
 */
export type WordStarts = 'merged' | 'separate';
export type { DigitGroups };

/** The run's tokenizer knobs (contract: tokenizerWordStarts, tokenizerDigits). */
export interface TokenizerShape {
  wordStarts?: WordStarts;
  digits?: DigitGroups;
}

export function envTokenizer(corpus: readonly string[], vocabSize: number, shape: TokenizerShape = {}): TextTokenizer {
  const wordStarts = shape.wordStarts ?? 'merged';
  const digits = shape.digits ?? 'single';
  const key = `${vocabSize}:${wordStarts}:${digits}:${corpus.length}:${corpus.join('\u0000')}`;
  let tok = tokenizerCache.get(key);
  if (!tok) {
    tok = trainTokenizer(
      corpus.map((text) => text.replace(/[0-9]+/g, ' ')),
      { vocabSize, separateWordStarts: wordStarts === 'separate', digits },
    );
    tokenizerCache.set(key, tok);
  }
  return tok;
}

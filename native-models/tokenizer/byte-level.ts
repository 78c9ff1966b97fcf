// Byte-level BPE works on bytes shown as printable characters (GPT-2's mapping): printable Latin-1
// bytes stand for themselves, the other 68 bytes are shifted to U+0100 and up. Every string maps to a
// sequence of these 256 characters and back, so no input is ever unknown to the vocabulary.

function buildByteToChar(): string[] {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out: string[] = new Array(256);
  let shifted = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCharCode(printable(b) ? b : 256 + shifted++);
  return out;
}

/** BYTE_TO_CHAR[b] is the character byte b is written as in the vocabulary. */
export const BYTE_TO_CHAR: readonly string[] = buildByteToChar();
export const CHAR_TO_BYTE: ReadonlyMap<string, number> = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));

export function bytesToByteChars(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += BYTE_TO_CHAR[b];
  return s;
}

/** Inverse of bytesToByteChars; undefined when a character is not one of the 256 byte characters. */
export function byteCharsToBytes(s: string): Uint8Array | undefined {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const b = CHAR_TO_BYTE.get(s[i]);
    if (b === undefined) return undefined;
    out[i] = b;
  }
  return out;
}

/**
 * Qwen2's split pattern (also Llama 3's, bar digit grouping): contractions, letter runs with one leading
 * non-letter, single digits (numbers in tool arguments stay compositional), punctuation runs, newlines.
 * Stored verbatim in tokenizer.json, where the Rust and JS tokenizers interpret it the same way.
 */
export const SPLIT_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/**
 * How a digit run is cut: one digit a piece (SPLIT_PATTERN), or pairs from its start (`4881902` as
 * 48|81|90|2). Pairs give an id half the pieces from an alphabet of 100 rather than 10, so a piece
 * of an id rarely recurs inside it — what copying by content (find the piece, take the next) needs.
 */
export type DigitGroups = 'single' | 'pairs';

/** The split pattern for `digits`: SPLIT_PATTERN, or the same with digits taken two at a time. */
export function splitPattern(digits: DigitGroups = 'single'): string {
  return digits === 'single' ? SPLIT_PATTERN : SPLIT_PATTERN.replace('|\\p{N}|', '|\\p{N}{1,2}|');
}

const BYTE_LEVEL = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false } as const;

/** tokenizer.json `pre_tokenizer` for `digits`: split with the pattern, then map bytes to characters. */
export function preTokenizerConfig(digits: DigitGroups = 'single') {
  return {
    type: 'Sequence',
    pretokenizers: [{ type: 'Split', pattern: { Regex: splitPattern(digits) }, behavior: 'Isolated', invert: false }, BYTE_LEVEL],
  };
}

/** tokenizer.json `pre_tokenizer` of our tokenizers with single digits. */
export const PRE_TOKENIZER_CONFIG = preTokenizerConfig();
export const DECODER_CONFIG = BYTE_LEVEL;
export const POST_PROCESSOR_CONFIG = BYTE_LEVEL;

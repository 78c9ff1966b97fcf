// A GGUF file's tokenizer (`tokenizer.ggml.*`) as Hugging Face tokenizer.json + tokenizer_config.json, so an
// imported GGUF tokenizes through the same loader as any HF model. Only llama.cpp's "gpt2" model (byte-level
// BPE with merges) is converted; its `tokenizer.ggml.pre` names the split regex, which is mapped to the
// pre-tokenizer Hugging Face uses for the same family. A pre-tokenizer or model not listed here is refused,
// naming it: a wrong split would tokenize differently from llama.cpp without any error. llama.cpp's "llama" model
// (SentencePiece BPE: scores, no merges, byte fallback) becomes the tokenizer.json transformers writes for Llama 2:
// spaces as "▁", a "▁" before each run of text, and merges ranked by the score of the piece they make, which is
// the order llama.cpp's highest-score-first merging applies them in.

import type { AddedTokenJson, TokenizerConfigJson, TokenizerJson } from '../tokenizer/tokenizer-files';
import { PRE_TOKENIZER_CONFIG } from '../tokenizer/byte-level';
import { GgufError, type GgufValue } from './gguf';

/** llama.cpp token types (llama_token_type). */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, byte: 6 } as const;

const BYTE_LEVEL_SPLIT = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true } as const;
const BYTE_LEVEL = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false } as const;
/** Llama 3's split (digits in runs of up to three), llama.cpp pre-tokenizer "llama-bpe". */
const LLAMA3_SPLIT =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** tokenizer.ggml.pre → the tokenizer.json pre_tokenizer of the same split (the GGUF export maps them back). */
export const PRE_TOKENIZERS: Readonly<Record<string, unknown>> = {
  'gpt-2': BYTE_LEVEL_SPLIT,
  // GPT-2's split after isolating every digit (SmolLM, SmolLM2). Split on \p{N}, as llama.cpp does, rather than the
  // Digits pre-tokenizer: the JS tokenizer's Digits leaves Devanagari and Arabic-Indic digits in runs.
  smollm: { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '\\p{N}' }, behavior: 'Isolated', invert: false }, BYTE_LEVEL_SPLIT] },
  qwen2: PRE_TOKENIZER_CONFIG,
  'llama-bpe': { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: LLAMA3_SPLIT }, behavior: 'Isolated', invert: false }, BYTE_LEVEL] },
};

export type GgufMetadata = ReadonlyMap<string, GgufValue>;

export function metaString(meta: GgufMetadata, key: string): string | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  if (v.type !== 'string') throw new GgufError('BAD_VALUE', `metadata "${key}" must be a string, got ${v.type}`);
  return v.value;
}

/** An unsigned integer key (any integer width), range-checked. */
export function metaInt(meta: GgufMetadata, key: string): number | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  const n = v.type === 'u64' || v.type === 'i64' ? Number(v.value) : ['u8', 'i8', 'u16', 'i16', 'u32', 'i32'].includes(v.type) ? (v.value as number) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new GgufError('BAD_VALUE', `metadata "${key}" must be a non-negative integer, got ${v.type} ${String(v.value)}`);
  return n;
}

export function metaBool(meta: GgufMetadata, key: string): boolean | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  if (v.type !== 'bool') throw new GgufError('BAD_VALUE', `metadata "${key}" must be a bool, got ${v.type}`);
  return v.value;
}

function metaArray<T extends 'string' | 'number'>(meta: GgufMetadata, key: string, item: T): (T extends 'string' ? string : number)[] | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  if (v.type !== 'array' || (item === 'string') !== (v.itemType === 'string') || v.value.some((x) => typeof x !== item)) {
    throw new GgufError('BAD_VALUE', `metadata "${key}" must be an array of ${item}s`);
  }
  return v.value as (T extends 'string' ? string : number)[];
}

export interface HfTokenizerFiles {
  json: TokenizerJson;
  config: TokenizerConfigJson;
  bosTokenId?: number;
  eosTokenId?: number;
  padTokenId?: number;
}

/** `tokenizer.ggml.*` and `tokenizer.chat_template` → tokenizer.json and tokenizer_config.json. */
export function hfTokenizerFromGguf(meta: GgufMetadata, modelMaxLength: number): HfTokenizerFiles {
  const model = metaString(meta, 'tokenizer.ggml.model');
  if (model === undefined) throw new GgufError('MISSING_KEY', 'the file has no tokenizer ("tokenizer.ggml.model" is missing)');
  if (model !== 'gpt2' && model !== 'llama') {
    throw new GgufError('UNSUPPORTED_TOKENIZER', `tokenizer.ggml.model "${model}" is not supported; this import takes byte-level BPE ("gpt2") and SentencePiece BPE ("llama") tokenizers`);
  }
  const tokens = metaArray(meta, 'tokenizer.ggml.tokens', 'string');
  if (!tokens || tokens.length === 0) throw new GgufError('MISSING_KEY', 'the file has no "tokenizer.ggml.tokens"');
  const types = metaArray(meta, 'tokenizer.ggml.token_type', 'number') ?? [];
  if (types.length !== 0 && types.length !== tokens.length) throw new GgufError('BAD_VALUE', `tokenizer.ggml.token_type has ${types.length} entries for ${tokens.length} tokens`);
  const spm = model === 'llama';
  const pre = spm ? 'sentencepiece' : (metaString(meta, 'tokenizer.ggml.pre') ?? 'gpt-2');
  const preTokenizer = spm ? null : PRE_TOKENIZERS[pre];
  if (preTokenizer === undefined) {
    throw new GgufError('UNSUPPORTED_TOKENIZER', `tokenizer.ggml.pre "${pre}" is not supported (supported: ${Object.keys(PRE_TOKENIZERS).join(', ')})`);
  }
  const pairs = spm ? sentencePieceMerges(meta, tokens, types) : bpeMerges(meta);

  const vocab: Record<string, number> = Object.create(null) as Record<string, number>;
  const added: AddedTokenJson[] = [];
  tokens.forEach((content, id) => {
    // A repeated string keeps its first id, as llama.cpp's token-to-id map does.
    if (!(content in vocab)) vocab[content] = id;
    const type = types[id];
    if (type === TOKEN_TYPE.control || type === TOKEN_TYPE.userDefined) {
      added.push({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: type === TOKEN_TYPE.control });
    }
  });
  const idKey = (key: string) => {
    const id = metaInt(meta, `tokenizer.ggml.${key}`);
    if (id !== undefined && id >= tokens.length) throw new GgufError('BAD_VALUE', `tokenizer.ggml.${key} ${id} is not a token id (${tokens.length} tokens)`);
    return id;
  };
  const bosTokenId = idKey('bos_token_id');
  const eosTokenId = idKey('eos_token_id');
  const padTokenId = idKey('padding_token_id');
  const unkTokenId = idKey('unknown_token_id') ?? types.findIndex((t) => t === TOKEN_TYPE.unknown);
  const addBos = metaBool(meta, 'tokenizer.ggml.add_bos_token') ?? false;
  const text = (id: number | undefined) => (id === undefined || id < 0 ? null : tokens[id]);

  const addSpacePrefix = metaBool(meta, 'tokenizer.ggml.add_space_prefix') ?? true;

  const postProcessor =
    addBos && bosTokenId !== undefined
      ? {
          type: 'TemplateProcessing',
          single: [{ SpecialToken: { id: tokens[bosTokenId], type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
          pair: [{ SpecialToken: { id: tokens[bosTokenId], type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
          special_tokens: { [tokens[bosTokenId]]: { id: tokens[bosTokenId], ids: [bosTokenId], tokens: [tokens[bosTokenId]] } },
        }
      : spm
        ? null
        : BYTE_LEVEL;
  const json: TokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: spm ? SPM_NORMALIZER(addSpacePrefix) : null,
    pre_tokenizer: preTokenizer,
    post_processor: postProcessor,
    decoder: spm ? SPM_DECODER(addSpacePrefix) : BYTE_LEVEL,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: text(unkTokenId),
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: spm,
      byte_fallback: spm,
      ignore_merges: pre === 'llama-bpe',
      vocab,
      merges: pairs,
    },
  };
  const config: TokenizerConfigJson = {
    add_bos_token: addBos,
    add_eos_token: metaBool(meta, 'tokenizer.ggml.add_eos_token') ?? false,
    add_prefix_space: spm && addSpacePrefix,
    added_tokens_decoder: Object.fromEntries(added.map(({ id, ...t }) => [String(id), t])),
    bos_token: text(bosTokenId),
    eos_token: text(eosTokenId),
    pad_token: text(padTokenId),
    unk_token: text(unkTokenId),
    clean_up_tokenization_spaces: false,
    model_max_length: modelMaxLength,
    tokenizer_class: 'PreTrainedTokenizerFast',
  };
  const template = metaString(meta, 'tokenizer.chat_template');
  if (template !== undefined) config.chat_template = template;
  return { json, config, bosTokenId, eosTokenId, padTokenId };
}

function bpeMerges(meta: GgufMetadata): [string, string][] {
  const merges = metaArray(meta, 'tokenizer.ggml.merges', 'string');
  if (!merges) throw new GgufError('MISSING_KEY', 'a "gpt2" tokenizer needs "tokenizer.ggml.merges"');
  return merges.map((m, i): [string, string] => {
    const at = m.indexOf(' ');
    if (at <= 0 || at === m.length - 1 || m.indexOf(' ', at + 1) !== -1) throw new GgufError('BAD_VALUE', `tokenizer.ggml.merges[${i}] ${JSON.stringify(m.slice(0, 40))} is not two tokens separated by one space`);
    return [m.slice(0, at), m.slice(at + 1)];
  });
}

/**
 * SentencePiece BPE as merges: every split of a normal piece into two pieces of the vocabulary, ranked by the
 * merged piece's score (highest first; equal scores by id). Pieces are at most a few dozen characters, so this
 * is linear in the vocabulary.
 */
function sentencePieceMerges(meta: GgufMetadata, tokens: readonly string[], types: readonly number[]): [string, string][] {
  const scores = metaArray(meta, 'tokenizer.ggml.scores', 'number');
  if (!scores || scores.length !== tokens.length) throw new GgufError('MISSING_KEY', `a SentencePiece ("llama") tokenizer needs "tokenizer.ggml.scores", one per token (${tokens.length})`);
  const normal = (id: number) => (types[id] ?? TOKEN_TYPE.normal) === TOKEN_TYPE.normal || types[id] === TOKEN_TYPE.userDefined;
  const known = new Set(tokens.filter((_, id) => normal(id)));
  const ranked = tokens.map((_, id) => id).filter((id) => normal(id) && [...tokens[id]].length > 1);
  ranked.sort((a, b) => scores[b] - scores[a] || a - b);
  const merges: [string, string][] = [];
  for (const id of ranked) {
    const chars = [...tokens[id]];
    for (let cut = 1; cut < chars.length; cut++) {
      const left = chars.slice(0, cut).join('');
      const right = chars.slice(cut).join('');
      if (known.has(left) && known.has(right)) merges.push([left, right]);
    }
  }
  return merges;
}

/** Spaces become "▁"; with add_space_prefix a "▁" also starts each run of text (llama.cpp adds it after each special token too). */
const SPM_NORMALIZER = (addSpacePrefix: boolean) => ({
  type: 'Sequence',
  normalizers: [...(addSpacePrefix ? [{ type: 'Prepend', prepend: '\u2581' }] : []), { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' }],
});
const SPM_DECODER = (addSpacePrefix: boolean) => ({
  type: 'Sequence',
  decoders: [
    { type: 'Replace', pattern: { String: '\u2581' }, content: ' ' },
    { type: 'ByteFallback' },
    { type: 'Fuse' },
    ...(addSpacePrefix ? [{ type: 'Strip', content: ' ', start: 1, stop: 0 }] : []),
  ],
});

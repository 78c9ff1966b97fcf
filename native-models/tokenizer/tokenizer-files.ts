// Hugging Face tokenizer files: `tokenizer.json` (the tokenizer itself, as the Rust `tokenizers` crate
// serialises it) and `tokenizer_config.json` (what transformers adds: special-token roles, chat template).
// Our from-scratch tokenizer is written in exactly this form so one loader serves it and imported models.

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonBoundsError } from '../io/bounded-json';
import { FileBoundsError, type FileBoundsKind, readBoundedJsonFile } from '../io/bounded-file';
import { HF_CONFIG_MAXIMA } from '../io/hf-config';
import type { BpeModel } from './bpe-trainer';
import { DECODER_CONFIG, POST_PROCESSOR_CONFIG, preTokenizerConfig } from './byte-level';
import { END_TOKEN, PAD_TOKEN } from './special-tokens';

export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
/**
 * Real tokenizer.json files run to tens of MB (Gemma's 262k vocabulary: 33 MB); beyond this is not one.
 * The limit also bounds the parse, which needs several times the text in memory.
 */
export const MAX_TOKENIZER_FILE_BYTES = 64 * 1024 * 1024;
const MAX_TOKENIZER_DEPTH = 32;
/** Ids a tokenizer may have: the same ceiling as a config's vocab_size. */
export const MAX_TOKEN_IDS = HF_CONFIG_MAXIMA.vocab_size;

export type TokenizerErrorCode = 'MISSING_FILE' | 'UNREADABLE' | 'TOO_LARGE' | 'NOT_JSON' | 'INVALID_TOKENIZER' | 'BAD_TEMPLATE' | 'BAD_INPUT';

export class TokenizerError extends Error {
  override name = 'TokenizerError';
  constructor(
    readonly code: TokenizerErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type TokenizerJson = Record<string, unknown> & { model: Record<string, unknown>; added_tokens: AddedTokenJson[] };
export type TokenizerConfigJson = Record<string, unknown>;

export interface AddedTokenJson {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

/** tokenizer.json for a trained byte-level BPE model. */
export function bpeTokenizerJson(model: BpeModel): TokenizerJson {
  const added_tokens: AddedTokenJson[] = model.specialTokens.map((content, id) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens,
    normalizer: null,
    pre_tokenizer: preTokenizerConfig(model.digits),
    post_processor: POST_PROCESSOR_CONFIG,
    decoder: DECODER_CONFIG,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(model.vocab.map((t, i) => [t, i])),
      merges: model.merges,
    },
  };
}

export interface TokenizerConfigOptions {
  chatTemplate?: string;
  modelMaxLength?: number;
}

/** tokenizer_config.json for a trained model: no BOS, `<|end|>` ends turns, `<|pad|>` pads. */
export function bpeTokenizerConfig(model: BpeModel, opts: TokenizerConfigOptions = {}): TokenizerConfigJson {
  const decoder = Object.fromEntries(
    model.specialTokens.map((content, id) => [
      String(id),
      { content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: true },
    ]),
  );
  const config: TokenizerConfigJson = {
    add_bos_token: false,
    add_eos_token: false,
    add_prefix_space: false,
    added_tokens_decoder: decoder,
    additional_special_tokens: model.specialTokens.filter((t) => t !== END_TOKEN && t !== PAD_TOKEN),
    bos_token: null,
    eos_token: model.specialTokens.includes(END_TOKEN) ? END_TOKEN : null,
    pad_token: model.specialTokens.includes(PAD_TOKEN) ? PAD_TOKEN : null,
    unk_token: null,
    // Cleanup would rewrite " ." to "." on decode and break decode(encode(x)) === x.
    clean_up_tokenization_spaces: false,
    model_max_length: opts.modelMaxLength ?? 4096,
    tokenizer_class: 'PreTrainedTokenizerFast',
  };
  if (opts.chatTemplate !== undefined) config.chat_template = opts.chatTemplate;
  return config;
}

export function writeTokenizerFiles(dir: string, tokenizer: TokenizerJson, config: TokenizerConfigJson): void {
  writeFileSync(join(dir, TOKENIZER_FILE), JSON.stringify(tokenizer));
  writeFileSync(join(dir, TOKENIZER_CONFIG_FILE), `${JSON.stringify(config, null, 2)}\n`);
}

const FILE_ERROR_CODES: Record<FileBoundsKind, TokenizerErrorCode> = { missing: 'MISSING_FILE', too_large: 'TOO_LARGE', not_file: 'UNREADABLE', unreadable: 'UNREADABLE' };

function readJsonObject(path: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = readBoundedJsonFile(path, { maxBytes: MAX_TOKENIZER_FILE_BYTES, maxDepth: MAX_TOKENIZER_DEPTH }, path);
  } catch (e) {
    if (e instanceof FileBoundsError) throw new TokenizerError(FILE_ERROR_CODES[e.kind], e.message);
    if (e instanceof JsonBoundsError) throw new TokenizerError(e.kind === 'malformed' ? 'NOT_JSON' : 'TOO_LARGE', e.message);
    throw e;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TokenizerError('INVALID_TOKENIZER', `${path} is not a JSON object`);
  return json as Record<string, unknown>;
}

const isTokenId = (id: unknown): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id >= 0;

/**
 * Every id the tokenizer defines must be a non-negative integer below MAX_TOKEN_IDS, and the ids up
 * to the vocabulary's largest must all be used (by the vocabulary or an added token). Ids are array
 * indices and embedding rows: an id of 1e9 cost time and memory in proportion to its value, and one
 * past 2^32 or below 0 broke training long after the import. Added tokens may sit above the
 * vocabulary with a gap (a fine-tuned model's new tokens go after its padded embedding rows); the
 * import checks them against the config's vocab_size. Returns the ids.
 */
function checkIds(model: Record<string, unknown>, added: readonly AddedTokenJson[], fail: (msg: string) => TokenizerError): Set<number> {
  const ids = new Set<number>();
  let vocabMax = -1;
  if (Array.isArray(model.vocab)) {
    // Unigram: a list of [piece, score]; the id is the position.
    if (model.vocab.length > MAX_TOKEN_IDS) throw fail(`"model.vocab" has ${model.vocab.length} entries, over the limit of ${MAX_TOKEN_IDS}`);
    for (let i = 0; i < model.vocab.length; i++) ids.add(i);
    vocabMax = model.vocab.length - 1;
  } else {
    for (const [token, id] of Object.entries(model.vocab as Record<string, unknown>)) {
      if (!isTokenId(id) || id >= MAX_TOKEN_IDS) {
        throw fail(`"model.vocab" gives ${JSON.stringify(token.slice(0, 40))} the id ${JSON.stringify(id)}; ids are integers from 0 to ${MAX_TOKEN_IDS - 1}`);
      }
      if (ids.has(id)) throw fail(`"model.vocab" gives the id ${id} to more than one token`);
      ids.add(id);
      vocabMax = Math.max(vocabMax, id);
    }
  }
  const addedIds = new Set<number>();
  for (const t of added) {
    if (t.id >= MAX_TOKEN_IDS) throw fail(`"added_tokens" id ${t.id} is over the limit of ${MAX_TOKEN_IDS - 1}`);
    if (addedIds.has(t.id)) throw fail(`"added_tokens" has the id ${t.id} more than once`);
    addedIds.add(t.id);
    ids.add(t.id);
  }
  let below = 0;
  for (const id of ids) if (id <= vocabMax) below++;
  if (below !== vocabMax + 1) {
    throw fail(`ids are not dense: "model.vocab" reaches ${vocabMax} but only ${below} of the ids 0..${vocabMax} are used by it and "added_tokens"`);
  }
  return ids;
}

/** Shape checks the JS tokenizer does not do itself (it would fail later with a TypeError). */
export function validateTokenizerJson(json: Record<string, unknown>, where = TOKENIZER_FILE): TokenizerJson {
  const fail = (msg: string) => new TokenizerError('INVALID_TOKENIZER', `${where}: ${msg}`);
  const model = json.model as Record<string, unknown> | null | undefined;
  if (model === null || typeof model !== 'object' || Array.isArray(model)) throw fail('no "model" object');
  if (typeof model.vocab !== 'object' || model.vocab === null) throw fail('"model.vocab" is missing');
  if (model.type === 'BPE' && !Array.isArray(model.merges)) throw fail('BPE "model.merges" is not a list');
  const added = json.added_tokens ?? [];
  if (!Array.isArray(added)) throw fail('"added_tokens" is not a list');
  for (const t of added as unknown[]) {
    const tok = t as Partial<AddedTokenJson> | null;
    if (tok === null || typeof tok !== 'object' || !isTokenId(tok.id) || typeof tok.content !== 'string' || tok.content === '') {
      throw fail(`"added_tokens": added token ${JSON.stringify(t)?.slice(0, 200)} needs a non-negative integer "id" and non-empty "content"`);
    }
  }
  checkIds(model, added as AddedTokenJson[], fail);
  for (const key of ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder']) if (!(key in json)) json[key] = null;
  return { ...json, added_tokens: added as AddedTokenJson[], model } as TokenizerJson;
}

/** tokenizer_config.json's `added_tokens_decoder` is keyed by id: each key must be an id tokenizer.json has. */
export function validateTokenizerConfig(config: TokenizerConfigJson, tokenizer: TokenizerJson, where = TOKENIZER_CONFIG_FILE): TokenizerConfigJson {
  const fail = (msg: string) => new TokenizerError('INVALID_TOKENIZER', `${where}: ${msg}`);
  const decoder = config.added_tokens_decoder;
  if (decoder === undefined || decoder === null) return config;
  if (typeof decoder !== 'object' || Array.isArray(decoder)) throw fail('"added_tokens_decoder" is not an object');
  const ids = checkIds(tokenizer.model, tokenizer.added_tokens, fail);
  for (const [key, value] of Object.entries(decoder)) {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(key) || !ids.has(Number(key))) {
      throw fail(`"added_tokens_decoder" key ${JSON.stringify(key.slice(0, 40))} is not an id that ${TOKENIZER_FILE} defines`);
    }
    if (value === null || typeof value !== 'object' || typeof (value as { content?: unknown }).content !== 'string') {
      throw fail(`"added_tokens_decoder" entry ${key} has no "content" string`);
    }
  }
  return config;
}

/** Read tokenizer.json (required) and tokenizer_config.json (optional) from a model folder. */
export function readTokenizerFiles(dir: string): { tokenizer: TokenizerJson; config: TokenizerConfigJson } {
  const tokenizerPath = join(dir, TOKENIZER_FILE);
  if (!existsSync(tokenizerPath)) throw new TokenizerError('MISSING_FILE', `${tokenizerPath} does not exist`);
  const tokenizer = validateTokenizerJson(readJsonObject(tokenizerPath), tokenizerPath);
  const configPath = join(dir, TOKENIZER_CONFIG_FILE);
  const config = existsSync(configPath) ? validateTokenizerConfig(readJsonObject(configPath), tokenizer, configPath) : {};
  return { tokenizer, config };
}

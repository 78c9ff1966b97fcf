// Hugging Face tokenizer files: `tokenizer.json` (the tokenizer itself, as the Rust `tokenizers` crate
// serialises it) and `tokenizer_config.json` (what transformers adds: special-token roles, chat template).
// Our from-scratch tokenizer is written in exactly this form so one loader serves it and imported models.

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BpeModel } from './bpe-trainer';
import { DECODER_CONFIG, POST_PROCESSOR_CONFIG, PRE_TOKENIZER_CONFIG } from './byte-level';
import { END_TOKEN, PAD_TOKEN } from './special-tokens';

export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
/** Real tokenizer.json files run to tens of MB (large multilingual vocabularies); beyond this is not one. */
export const MAX_TOKENIZER_FILE_BYTES = 256 * 1024 * 1024;

export type TokenizerErrorCode = 'MISSING_FILE' | 'TOO_LARGE' | 'NOT_JSON' | 'INVALID_TOKENIZER' | 'BAD_TEMPLATE' | 'BAD_INPUT';

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
    pre_tokenizer: PRE_TOKENIZER_CONFIG,
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

function readJsonObject(path: string): Record<string, unknown> {
  const size = statSync(path).size;
  if (size > MAX_TOKENIZER_FILE_BYTES) throw new TokenizerError('TOO_LARGE', `${path} is ${size} bytes, over the ${MAX_TOKENIZER_FILE_BYTES}-byte limit`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new TokenizerError('NOT_JSON', `${path} is not valid JSON (${(e as Error).message})`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TokenizerError('INVALID_TOKENIZER', `${path} is not a JSON object`);
  return json as Record<string, unknown>;
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
    if (tok === null || typeof tok !== 'object' || !Number.isSafeInteger(tok.id) || (tok.id as number) < 0 || typeof tok.content !== 'string' || tok.content === '') {
      throw fail(`added token ${JSON.stringify(t)} needs a non-negative integer "id" and non-empty "content"`);
    }
  }
  for (const key of ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder']) if (!(key in json)) json[key] = null;
  return { ...json, added_tokens: added as AddedTokenJson[], model } as TokenizerJson;
}

/** Read tokenizer.json (required) and tokenizer_config.json (optional) from a model folder. */
export function readTokenizerFiles(dir: string): { tokenizer: TokenizerJson; config: TokenizerConfigJson } {
  const tokenizerPath = join(dir, TOKENIZER_FILE);
  if (!existsSync(tokenizerPath)) throw new TokenizerError('MISSING_FILE', `${tokenizerPath} does not exist`);
  const tokenizer = validateTokenizerJson(readJsonObject(tokenizerPath), tokenizerPath);
  const configPath = join(dir, TOKENIZER_CONFIG_FILE);
  const config = existsSync(configPath) ? readJsonObject(configPath) : {};
  return { tokenizer, config };
}

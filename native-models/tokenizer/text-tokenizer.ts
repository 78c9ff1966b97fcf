// One tokenizer type for every model: a Hugging Face tokenizer.json run by @huggingface/tokenizers, plus
// the bits of tokenizer_config.json the engine needs (special-token roles, chat template).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { FileBoundsError, readBoundedText } from '../io/bounded-file';
import { type BpeModel, type BpeTrainOptions, trainBpe } from './bpe-trainer';
import { type ChatMessage, type ChatRenderOptions, ENVACE_CHAT_TEMPLATE, renderChatTemplate } from './chat-template';
import {
  TokenizerError,
  type TokenizerConfigJson,
  type TokenizerJson,
  bpeTokenizerConfig,
  bpeTokenizerJson,
  readTokenizerFiles,
  validateTokenizerConfig,
  validateTokenizerJson,
  writeTokenizerFiles,
} from './tokenizer-files';

export const CHAT_TEMPLATE_FILE = 'chat_template.jinja';

export interface EncodeOptions {
  /**
   * Recognise special-token text (e.g. "<|end|>") as the special token. Default true, as in Hugging Face.
   * Pass false for text that must not be able to inject control tokens (observations, model output).
   */
  parseSpecial?: boolean;
  /** Let the tokenizer's post-processor add BOS/EOS. Default false: chat templates write their own. */
  addSpecialTokens?: boolean;
}

export interface DecodeOptions {
  skipSpecialTokens?: boolean;
}

/** Special tokens in tokenizer_config.json are a string or an AddedToken-like `{content}` object. */
function tokenText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return undefined;
}

/** `chat_template` is a string, or a list of named templates of which "default" is the one to use. */
function pickChatTemplate(config: TokenizerConfigJson): string | undefined {
  const t = config.chat_template;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const named = t as { name?: unknown; template?: unknown }[];
    const chosen = named.find((x) => x?.name === 'default') ?? named[0];
    if (typeof chosen?.template === 'string') return chosen.template;
  }
  return undefined;
}

export class TextTokenizer {
  private readonly hf: Tokenizer;
  private readonly specialIdSet: Set<number>;
  /** Special tokens by content → id. */
  readonly specialTokens: ReadonlyMap<string, number>;
  /** One more than the largest id: the logits width this tokenizer needs. */
  readonly vocabSize: number;
  readonly chatTemplate: string | undefined;
  readonly bosToken: string | undefined;
  readonly eosToken: string | undefined;
  readonly padToken: string | undefined;

  constructor(
    readonly json: TokenizerJson,
    readonly config: TokenizerConfigJson = {},
    chatTemplate?: string,
  ) {
    try {
      this.hf = new Tokenizer(json, config);
    } catch (e) {
      throw new TokenizerError('INVALID_TOKENIZER', `tokenizer.json is not usable (${(e as Error).message})`);
    }
    this.specialTokens = new Map(json.added_tokens.filter((t) => t.special).map((t) => [t.content, t.id]));
    this.specialIdSet = new Set(this.specialTokens.values());
    let maxId = -1;
    for (const id of this.hf.get_vocab(true).values()) maxId = Math.max(maxId, id);
    this.vocabSize = maxId + 1;
    this.chatTemplate = chatTemplate ?? pickChatTemplate(config);
    this.bosToken = tokenText(config.bos_token);
    this.eosToken = tokenText(config.eos_token);
    this.padToken = tokenText(config.pad_token);
  }

  tokenToId(token: string): number | undefined {
    return this.hf.token_to_id(token);
  }

  idToToken(id: number): string | undefined {
    return this.hf.id_to_token(id);
  }

  isSpecial(id: number): boolean {
    return this.specialIdSet.has(id);
  }

  get eosTokenId(): number | undefined {
    return this.eosToken === undefined ? undefined : this.tokenToId(this.eosToken);
  }

  get padTokenId(): number | undefined {
    return this.padToken === undefined ? undefined : this.tokenToId(this.padToken);
  }

  get bosTokenId(): number | undefined {
    return this.bosToken === undefined ? undefined : this.tokenToId(this.bosToken);
  }

  encode(text: string, opts: EncodeOptions = {}): number[] {
    if (typeof text !== 'string') throw new TokenizerError('BAD_INPUT', `encode expects a string, got ${typeof text}`);
    if (text.length === 0) return [];
    if (opts.parseSpecial ?? true) return this.hf.encode(text, { add_special_tokens: opts.addSpecialTokens ?? false }).ids;
    return this.encodeWithoutSpecials(text);
  }

  /** The tokenizer pipeline minus its added-token splitter: text that looks like "<|end|>" stays text. */
  private encodeWithoutSpecials(text: string): number[] {
    const { normalizer, pre_tokenizer: preTokenizer, model } = this.hf;
    if (!model) throw new TokenizerError('INVALID_TOKENIZER', 'tokenizer has no model');
    const normalized = normalizer ? normalizer(text) : text;
    const tokens = model(preTokenizer ? preTokenizer(normalized) : [normalized]);
    const ids: number[] = [];
    for (const t of tokens) {
      const id = model.tokens_to_ids.get(t) ?? model.unk_token_id;
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /**
   * Ids to text. Never throws on model output: ids the vocabulary lacks (a model's padded logit rows)
   * come out as U+FFFD, like invalid byte sequences do.
   */
  decode(ids: readonly number[], opts: DecodeOptions = {}): string {
    const parts: string[] = [];
    let run: number[] = [];
    const flush = () => {
      if (run.length > 0) parts.push(this.hf.decode(run, { skip_special_tokens: opts.skipSpecialTokens ?? false }));
      run = [];
    };
    for (const id of ids) {
      if (Number.isSafeInteger(id) && id >= 0 && this.hf.id_to_token(id) !== undefined) run.push(id);
      else {
        flush();
        parts.push('\uFFFD');
      }
    }
    flush();
    return parts.join('');
  }

  /** Render messages with this model's chat template (ours for from-scratch models). */
  renderChat(messages: readonly ChatMessage[], opts: ChatRenderOptions = {}): string {
    if (!this.chatTemplate) throw new TokenizerError('BAD_TEMPLATE', 'this tokenizer has no chat template');
    const specialTokens: Record<string, string | undefined> = {
      bos_token: this.bosToken ?? '',
      eos_token: this.eosToken ?? '',
      pad_token: this.padToken ?? '',
    };
    return renderChatTemplate(this.chatTemplate, messages, { ...opts, specialTokens });
  }

  /**
   * This tokenizer with `tokens` added as special tokens where it lacks them, at new ids from
   * `firstId` (default: after the last id). A pretrained model learns our role markers this way;
   * ids below its embedding's row count reuse padded rows, ids above need the rows grown.
   */
  withSpecialTokens(tokens: readonly string[], firstId = this.vocabSize): TextTokenizer {
    const missing = tokens.filter((t) => this.tokenToId(t) === undefined);
    if (missing.length === 0) return this;
    let next = Math.max(firstId, this.vocabSize);
    const added = missing.map((content) => ({ id: next++, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));
    const decoder = { ...((this.config.added_tokens_decoder as Record<string, unknown> | undefined) ?? {}) };
    for (const t of added) decoder[String(t.id)] = { content: t.content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
    return new TextTokenizer({ ...this.json, added_tokens: [...this.json.added_tokens, ...added] }, { ...this.config, added_tokens_decoder: decoder }, this.chatTemplate);
  }

  /**
   * Write tokenizer.json + tokenizer_config.json (template included) into `dir`. `modelMaxLength`: the context of
   * the model these files go with, which transformers reads as the longest input it may build (its truncation
   * and warnings); the tokenizer alone does not know it.
   */
  save(dir: string, opts: { modelMaxLength?: number } = {}): void {
    let config = this.chatTemplate === undefined ? this.config : { ...this.config, chat_template: this.chatTemplate };
    if (opts.modelMaxLength !== undefined) config = { ...config, model_max_length: opts.modelMaxLength };
    writeTokenizerFiles(dir, this.json, config);
  }
}

/** Train our byte-level BPE tokenizer on a corpus; it carries our special tokens and chat template. */
export function trainTokenizer(corpus: Iterable<string>, opts: BpeTrainOptions & { modelMaxLength?: number }): TextTokenizer {
  const model: BpeModel = trainBpe(corpus, opts);
  return new TextTokenizer(
    bpeTokenizerJson(model),
    bpeTokenizerConfig(model, { chatTemplate: ENVACE_CHAT_TEMPLATE, modelMaxLength: opts.modelMaxLength }),
  );
}

/** Build from already-parsed JSON objects (validated the same way as files). */
export function tokenizerFromJson(json: unknown, config: TokenizerConfigJson = {}): TextTokenizer {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TokenizerError('INVALID_TOKENIZER', 'tokenizer.json is not a JSON object');
  const tokenizer = validateTokenizerJson(json as Record<string, unknown>);
  return new TextTokenizer(tokenizer, validateTokenizerConfig(config, tokenizer));
}

/** Chat templates are a few KB of Jinja; a larger file is not one. */
const MAX_CHAT_TEMPLATE_BYTES = 1024 * 1024;

/** Load any Hugging Face tokenizer folder: tokenizer.json, tokenizer_config.json, chat_template.jinja. */
export function loadTokenizer(dir: string): TextTokenizer {
  const { tokenizer, config } = readTokenizerFiles(dir);
  const templatePath = join(dir, CHAT_TEMPLATE_FILE);
  // Newer transformers save the template as its own file; it takes precedence, as it does there.
  let template: string | undefined;
  try {
    template = existsSync(templatePath) ? readBoundedText(templatePath, MAX_CHAT_TEMPLATE_BYTES) : undefined;
  } catch (e) {
    if (e instanceof FileBoundsError) throw new TokenizerError(e.kind === 'too_large' ? 'TOO_LARGE' : 'UNREADABLE', e.message);
    throw e;
  }
  return new TextTokenizer(tokenizer, config, template);
}

// Public API of native-models/tokenizer: re-exports only.
export { END_TOKEN, PAD_TOKEN, SPECIAL_TOKENS, SPECIAL_TOKEN_IDS } from './special-tokens';
export type { SpecialToken } from './special-tokens';
export { trainBpe } from './bpe-trainer';
export type { BpeModel, BpeTrainOptions } from './bpe-trainer';
export { ENVACE_CHAT_TEMPLATE, renderChatTemplate } from './chat-template';
export type { ChatMessage, ChatRenderOptions } from './chat-template';
export { TokenizerError, bpeTokenizerConfig, bpeTokenizerJson } from './tokenizer-files';
export type { TokenizerConfigJson, TokenizerErrorCode, TokenizerJson } from './tokenizer-files';
export { TextTokenizer, loadTokenizer, tokenizerFromJson, trainTokenizer } from './text-tokenizer';
export type { DecodeOptions, EncodeOptions } from './text-tokenizer';

// Special tokens of the models we train from scratch. They take the lowest ids, in this order, so a
// tokenizer retrained on a new corpus keeps them where the episode code and saved runs expect them.

export const SPECIAL_TOKENS = ['<|system|>', '<|user|>', '<|act|>', '<|obs|>', '<|memory|>', '<|end|>', '<|pad|>', '<|rehearse|>'] as const;
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

/** End of a turn: also the token generation stops on. */
export const END_TOKEN: SpecialToken = '<|end|>';
export const PAD_TOKEN: SpecialToken = '<|pad|>';

/** Fixed id of each special token (its index in SPECIAL_TOKENS). */
export const SPECIAL_TOKEN_IDS: Readonly<Record<SpecialToken, number>> = Object.fromEntries(
  SPECIAL_TOKENS.map((t, i) => [t, i]),
) as Record<SpecialToken, number>;

// Growing a model's vocabulary: new token rows for the input embedding (and an untied output head),
// each set to the mean of some existing rows (by default all of them). A pretrained model that meets
// new special tokens then starts from an embedding it can read, not a random outlier: `<|act|>` from
// the rows of the word "act", say, so that the new markers also differ from one another.
import { ConfigError, type ModelConfig } from './config';
import type { Params } from './init';

const VOCAB_MATRICES = ['model.embed_tokens.weight', 'lm_head.weight'];

/**
 * `seeds[i]`, when given and non-empty, lists the existing ids whose rows average into new row
 * c.vocabSize + i; other new rows take the mean of every existing row.
 */
export function growVocabulary(c: ModelConfig, params: Params, vocabSize: number, seeds: readonly (readonly number[])[] = []): { config: ModelConfig; params: Params } {
  if (vocabSize < c.vocabSize) throw new ConfigError(`growVocabulary: ${vocabSize} rows would drop tokens of a ${c.vocabSize}-token model`);
  if (vocabSize === c.vocabSize) return { config: c, params };
  const out: Params = new Map(params);
  const C = c.dModel;
  for (const name of VOCAB_MATRICES) {
    const old = params.get(name);
    if (!old) continue; // lm_head is absent when tied
    if (old.length !== c.vocabSize * C) throw new ConfigError(`growVocabulary: ${name} has ${old.length} values, expected ${c.vocabSize}×${C}`);
    const meanOf = (rows: readonly number[]) => {
      const mean = new Float64Array(C);
      for (const r of rows) for (let j = 0; j < C; j++) mean[j] += old[r * C + j] / rows.length;
      return mean;
    };
    const all = meanOf(Array.from({ length: c.vocabSize }, (_, r) => r));
    const grown = new Float32Array(vocabSize * C);
    grown.set(old);
    for (let r = c.vocabSize; r < vocabSize; r++) {
      const own = (seeds[r - c.vocabSize] ?? []).filter((id) => Number.isInteger(id) && id >= 0 && id < c.vocabSize);
      grown.set(own.length ? meanOf(own) : all, r * C);
    }
    out.set(name, grown);
  }
  return { config: { ...c, vocabSize }, params: out };
}

// Growing a model's vocabulary: new token rows for the input embedding (and an untied output head),
// each set to the mean of the existing rows. A pretrained model that meets new special tokens then
// starts from an "average token" embedding and a logit near the average one, not a random outlier.
import { ConfigError, type ModelConfig } from './config';
import type { Params } from './init';

const VOCAB_MATRICES = ['model.embed_tokens.weight', 'lm_head.weight'];

export function growVocabulary(c: ModelConfig, params: Params, vocabSize: number): { config: ModelConfig; params: Params } {
  if (vocabSize < c.vocabSize) throw new ConfigError(`growVocabulary: ${vocabSize} rows would drop tokens of a ${c.vocabSize}-token model`);
  if (vocabSize === c.vocabSize) return { config: c, params };
  const out: Params = new Map(params);
  const C = c.dModel;
  for (const name of VOCAB_MATRICES) {
    const old = params.get(name);
    if (!old) continue; // lm_head is absent when tied
    if (old.length !== c.vocabSize * C) throw new ConfigError(`growVocabulary: ${name} has ${old.length} values, expected ${c.vocabSize}×${C}`);
    const mean = new Float64Array(C);
    for (let r = 0; r < c.vocabSize; r++) for (let j = 0; j < C; j++) mean[j] += old[r * C + j];
    const grown = new Float32Array(vocabSize * C);
    grown.set(old);
    for (let r = c.vocabSize; r < vocabSize; r++) for (let j = 0; j < C; j++) grown[r * C + j] = mean[j] / c.vocabSize;
    out.set(name, grown);
  }
  return { config: { ...c, vocabSize }, params: out };
}

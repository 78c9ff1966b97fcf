// Real model shapes the benchmark can run with random weights, when no imported model is at hand:
// speed depends on the shape alone. Each is the config an import of that model produces.
import { type ModelConfig, resolveConfig } from '../transformer/config';

export const BENCH_SHAPES = {
  /** SmolLM2-135M(-Instruct): 30 layers × 576, 9 heads over 3 key/value heads, a tied 49,152-token vocabulary. */
  smollm2: resolveConfig({
    vocabSize: 49152,
    dModel: 576,
    nLayers: 30,
    nHeads: 9,
    nKvHeads: 3,
    dFf: 1536,
    ropeTheta: 100000,
    normEps: 1e-5,
    tiedEmbeddings: true,
    qkvBias: false,
    qkNorm: false,
    maxSeqLen: 8192,
  }),
} satisfies Record<string, ModelConfig>;

export type BenchShapeName = keyof typeof BENCH_SHAPES;

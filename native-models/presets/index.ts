// Named model configs: a few lines over the default each.
import { type ModelConfig, defaultConfig, resolveConfig } from '../transformer/config';

export const PRESETS = {
  /** Tests and CI: well under 1M parameters. */
  nano: resolveConfig({ vocabSize: 256, dModel: 64, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 176, maxSeqLen: 256 }),
  /**
   * Quickstart: a couple of million parameters. Two layers, not six: every held-out task of a
   * procedural world needs ids copied from the context, and on retail look-ups two layers of this
   * width copied within 250 SFT steps on three seeds of three (32–60 % held-out), where six copied
   * on one seed of four by 1,500 steps (README "Learning to generalise"); a two-layer step is also
   * ≈ 2× faster.
   */
  tiny: resolveConfig({ vocabSize: 2048, dModel: 256, nLayers: 2, nHeads: 8, nKvHeads: 4, dFf: 704, maxSeqLen: 1024 }),
  /** Tens of millions of parameters. */
  small: resolveConfig({ vocabSize: 8192, dModel: 512, nLayers: 8, nHeads: 8, nKvHeads: 4, dFf: 1408, maxSeqLen: 2048 }),
} satisfies Record<string, ModelConfig>;

export type PresetName = keyof typeof PRESETS;

export function preset(name: string): ModelConfig {
  const c = (PRESETS as Record<string, ModelConfig>)[name];
  if (!c) throw new Error(`unknown preset '${name}' (known: ${Object.keys(PRESETS).join(', ')})`);
  return c;
}

export { defaultConfig };

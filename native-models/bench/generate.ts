// Generation throughput with the KV cache (batch 1 and batch 16 by default): new tokens per second
// over a fixed prompt, greedy, no early stop. Figures, never pass/fail.
import { PRESETS, type PresetName } from '../presets';
import { Generator } from '../runtime/generate';
import { initParams } from '../transformer/init';

export interface GenerateBenchOptions {
  presets?: PresetName[];
  batches?: number[];
  promptLen?: number;
  newTokens?: number;
  threads?: number;
}

export interface GenerateBenchResult {
  preset: string;
  batch: number;
  promptLen: number;
  newTokens: number;
  /** Prefill + decode wall time. */
  wallMs: number;
  tokensPerSec: number;
  peakRssMb: number;
}

export async function benchGenerate(opts: GenerateBenchOptions = {}): Promise<GenerateBenchResult[]> {
  const o = { presets: ['tiny'] as PresetName[], batches: [1, 16], promptLen: 64, newTokens: 64, ...opts };
  const results: GenerateBenchResult[] = [];
  for (const name of o.presets) {
    const c = PRESETS[name];
    const gen = await Generator.create(c, { intraOpThreads: o.threads });
    const params = initParams(c, 0);
    for (const batch of o.batches) {
      const prompts = Array.from({ length: batch }, (_, b) => Array.from({ length: o.promptLen }, (_, i) => (b * 37 + i * 11) % c.vocabSize));
      await gen.generate(params, prompts, { maxNewTokens: 2, temperature: 0 }); // warm-up
      const t0 = performance.now();
      const out = await gen.generate(params, prompts, { maxNewTokens: o.newTokens, temperature: 0 });
      const wallMs = performance.now() - t0;
      const generated = out.reduce((n, g) => n + g.tokens.length, 0);
      results.push({ preset: name, batch, promptLen: o.promptLen, newTokens: o.newTokens, wallMs, tokensPerSec: generated / (wallMs / 1000), peakRssMb: process.resourceUsage().maxRSS / 1024 });
    }
    await gen.release();
  }
  return results;
}

// Batch-1 decode speed of our Generator against llama.cpp (node-llama-cpp) on the same model, exported
// to GGUF by exportModel: figures for `envace bench`, never pass/fail. Both sides run greedy on the CPU
// with the same thread count; decode tokens/s excludes the prefill (time from the first generated token
// to the last), and the median of several runs is reported. Ours always runs float32 weights; `ggufDtype`
// picks what llama.cpp runs. One thread each by default: batch-1 decode of models this size is latency
// bound, and llama.cpp's spinning thread barriers collapse (measured 6 vs 750 tokens/s) when the cores
// are shared with other work.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Generator,
  type ModelConfig,
  PRESETS,
  type PresetName,
  countParams,
  initParams,
  resolveConfig,
  trainTokenizer,
} from '../../../native-models';
import { exportModel } from './export';
import { median } from '../../../native-models/bench/stats';

/** Our tokenizer holds 8 special tokens and 256 bytes; the model's vocabulary must fit them. */
const MIN_VOCAB = 264;

export interface LlamaBenchOptions {
  preset?: PresetName;
  promptTokens?: number;
  newTokens?: number;
  repeats?: number;
  ggufDtype?: 'f32' | 'f16';
  threads?: number;
}

export interface DecodeFigure {
  /** Median decode tokens/s over the repeats. */
  tokensPerSec: number;
  runs: number[];
}

export interface LlamaBenchResult {
  preset: string;
  params: number;
  ggufDtype: 'f32' | 'f16';
  threads: number;
  promptTokens: number;
  newTokens: number;
  ours: DecodeFigure;
  llamaCpp: DecodeFigure;
  /** ours / llama.cpp decode tokens/s. */
  ratio: number;
}

/** Decode tokens/s from the time the first token appeared to the time the last one did. */
const rate = (tokens: number, firstMs: number, lastMs: number) => (tokens - 1) / ((lastMs - firstMs) / 1000);

async function loadLlamaCpp(): Promise<typeof import('node-llama-cpp')> {
  try {
    return await import('node-llama-cpp');
  } catch (e) {
    throw new Error(`node-llama-cpp is not installed (a devDependency; run npm install): ${(e as Error).message}`);
  }
}

export async function benchLlamaCpp(opts: LlamaBenchOptions = {}): Promise<LlamaBenchResult> {
  const o = { preset: 'tiny' as PresetName, promptTokens: 32, newTokens: 64, repeats: 3, ggufDtype: 'f32' as const, threads: 1, ...opts };
  const base = PRESETS[o.preset];
  const config: ModelConfig = base.vocabSize >= MIN_VOCAB ? base : resolveConfig({ vocabSize: 320 }, base);
  if (o.promptTokens + o.newTokens > config.maxSeqLen)
    throw new RangeError(`promptTokens + newTokens exceeds the preset's maxSeqLen ${config.maxSeqLen}`);
  if (o.newTokens < 2) throw new RangeError('newTokens must be at least 2 (decode speed is measured between the first and last token)');
  const weights = initParams(config, 0);
  const tokenizer = trainTokenizer(['a small corpus for a tokenizer the benchmark never uses'], { vocabSize: Math.min(config.vocabSize, 512) });
  const prompt = Array.from({ length: o.promptTokens }, (_, i) => (i * 11 + 7) % config.vocabSize);
  const work = mkdtempSync(join(tmpdir(), 'envace-bench-llama-'));
  try {
    const gguf = join(work, 'gguf');
    await exportModel({ config, weights, tokenizer, format: 'gguf', ggufDtype: o.ggufDtype, outDir: gguf });

    const oursRuns: number[] = [];
    const generator = await Generator.create(config, { intraOpThreads: o.threads }, { weights: 'baked' }); // as rollout turns run
    try {
      await generator.generate(weights, [prompt], { maxNewTokens: 2, temperature: 0 }); // warm-up
      for (let r = 0; r < o.repeats; r++) {
        // Timed inside one generation, like llama.cpp's side: from the first sampled token to the last.
        // (Two generations, prefill-only then whole, could differ by less than their noise once decode got fast.)
        const t0 = performance.now();
        const stamps: number[] = [];
        await generator.generate(weights, [prompt], { maxNewTokens: o.newTokens, temperature: 0, onStep: () => stamps.push(performance.now()) });
        oursRuns.push(rate(o.newTokens, stamps[0] - t0, stamps[stamps.length - 1] - t0));
      }
    } finally {
      await generator.release();
    }

    const { getLlama, LlamaLogLevel } = await loadLlamaCpp();
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: join(gguf, `model-${o.ggufDtype}.gguf`) });
    const context = await model.createContext({ contextSize: o.promptTokens + o.newTokens + 8, threads: o.threads });
    const sequence = context.getSequence();
    const llamaRuns: number[] = [];
    try {
      for (let r = 0; r <= o.repeats; r++) {
        await sequence.clearHistory();
        const t0 = performance.now();
        let first = 0;
        let n = 0;
        for await (const _ of sequence.evaluate(prompt as never[], { temperature: 0 })) {
          if (++n === 1) first = performance.now() - t0;
          if (n === o.newTokens) break;
        }
        if (r > 0) llamaRuns.push(rate(o.newTokens, first, performance.now() - t0)); // run 0 warms up
      }
    } finally {
      await context.dispose();
      await model.dispose();
    }
    const ours = { tokensPerSec: median(oursRuns), runs: oursRuns };
    const llamaCpp = { tokensPerSec: median(llamaRuns), runs: llamaRuns };
    return {
      preset: o.preset,
      params: countParams(config),
      ggufDtype: o.ggufDtype,
      threads: o.threads,
      promptTokens: o.promptTokens,
      newTokens: o.newTokens,
      ours,
      llamaCpp,
      ratio: ours.tokensPerSec / llamaCpp.tokensPerSec,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

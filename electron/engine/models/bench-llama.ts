// Decode (batch 1, or B rows at once) and prefill speed of our Generator against llama.cpp (node-llama-cpp)
// on the same model, exported to GGUF by exportModel: figures for `envace bench`, never pass/fail. Both
// sides run greedy on the CPU with the same thread count; decode tokens/s excludes the prefill (time from
// the first generated token to the last), prefill tokens/s is the prompt over the time to the first token,
// and the median of several runs is reported. Ours always runs float32 weights; `ggufDtype` picks what
// llama.cpp runs. node-llama-cpp is a devDependency: where it cannot be loaded, llama.cpp's side of every
// figure says so and ours is still measured. One thread each by default: batch-1 decode of models this size is latency
// bound, and llama.cpp's spinning thread barriers collapse (measured 6 vs 750 tokens/s) when the cores
// are shared with other work.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Generator,
  type ModelConfig,
  type Params,
  PRESETS,
  type PresetName,
  type TextTokenizer,
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
const rate = (tokens: number, firstMs: number, lastMs: number) => tokens / ((lastMs - firstMs) / 1000);

type LlamaModule = typeof import('node-llama-cpp');

async function loadLlamaCpp(): Promise<LlamaModule> {
  try {
    return await import('node-llama-cpp');
  } catch (e) {
    throw new Error(`node-llama-cpp is not installed (a devDependency; run npm install): ${(e as Error).message}`);
  }
}

/** What a GGUF of `config` exports with when the model has no tokenizer of its own (a preset, a shape). */
export function benchTokenizer(config: ModelConfig): TextTokenizer {
  return trainTokenizer(['a small corpus for a tokenizer the benchmark never uses'], { vocabSize: Math.min(config.vocabSize, 512) });
}

export interface LlamaCompareOptions {
  config: ModelConfig;
  weights: Params;
  tokenizer: TextTokenizer;
  /** Thread counts, each measured on both sides (ORT intra-op threads; llama.cpp threads, held to exactly that). */
  threads?: number[];
  /** Decode batches (rows generated at once; llama.cpp: one sequence per row in one context). Default [1, 16]. */
  decodeBatches?: number[];
  /** Prompt length of the decode figures (default 32). */
  promptTokens?: number;
  /** Tokens generated per row in the decode figures (default 64; at least 2). */
  newTokens?: number;
  /** Prompt of the batch-1 prefill figure (default 1024); 0 leaves prefill out. */
  prefillTokens?: number;
  /** Timed runs per figure after one untimed run (default 3). */
  repeats?: number;
  ggufDtype?: 'f32' | 'f16';
  /** How llama.cpp is loaded (tests stand in a missing module); default node-llama-cpp. */
  loadLlama?: () => Promise<LlamaModule>;
  /** Called before each figure, for progress lines. */
  onFigure?: (what: string) => void;
}

export interface LlamaCompareRow {
  op: 'decode' | 'prefill';
  batch: number;
  promptTokens: number;
  newTokens: number;
  threads: number;
  ours: DecodeFigure;
  /** `{ error }` when llama.cpp could not run (node-llama-cpp missing, a load failure). */
  llamaCpp: DecodeFigure | { error: string };
  /** ours / llama.cpp tokens/s; null without llama.cpp's figure. */
  ratio: number | null;
}

interface Case {
  op: LlamaCompareRow['op'];
  prompts: number[][];
  newTokens: number;
}

interface Run {
  prefill: number;
  decode: number;
}

const figure = (runs: number[]): DecodeFigure => ({ tokensPerSec: median(runs), runs });

/** Both speeds of one generation from its start and per-row token time stamps (prefill ends when the last row has its first token). */
function speeds(c: Case, t0: number, stamps: number[][]): Run {
  const first = Math.max(...stamps.map((s) => s[0]));
  const last = Math.max(...stamps.map((s) => s[s.length - 1]));
  const promptTokens = c.prompts.reduce((n, p) => n + p.length, 0);
  return { prefill: rate(promptTokens, t0, first), decode: rate(c.prompts.length * (c.newTokens - 1), first, last) };
}

async function oursCase(generator: Generator, weights: Params, c: Case, repeats: number): Promise<Run[]> {
  const runs: Run[] = [];
  for (let r = 0; r <= repeats; r++) {
    const stamps: number[] = [];
    const t0 = performance.now();
    await generator.generate(weights, c.prompts, { maxNewTokens: c.newTokens, temperature: 0, onStep: () => stamps.push(performance.now()) });
    if (r > 0) runs.push(speeds(c, t0, c.prompts.map(() => stamps))); // run 0 warms up; every row samples at each step
  }
  return runs;
}

async function llamaCase(llama: Awaited<ReturnType<LlamaModule['getLlama']>>, modelPath: string, c: Case, threads: number, repeats: number): Promise<Run[]> {
  const model = await llama.loadModel({ modelPath });
  const longest = Math.max(...c.prompts.map((p) => p.length));
  const context = await model.createContext({
    contextSize: longest + c.newTokens + 16,
    sequences: c.prompts.length,
    // A whole prompt in one batch where it fits, as ours prefills it in one run.
    batchSize: Math.max(512, Math.min(2048, longest * c.prompts.length)),
    threads: { ideal: threads, min: threads },
  });
  const sequences = c.prompts.map(() => context.getSequence());
  const runs: Run[] = [];
  try {
    for (let r = 0; r <= repeats; r++) {
      for (const s of sequences) await s.clearHistory();
      const t0 = performance.now();
      const stamps = await Promise.all(
        sequences.map(async (sequence, b) => {
          const at: number[] = [];
          for await (const _ of sequence.evaluate(c.prompts[b] as never[], { temperature: 0 })) {
            at.push(performance.now());
            if (at.length === c.newTokens) break;
          }
          return at;
        }),
      );
      if (r > 0) runs.push(speeds(c, t0, stamps)); // run 0 warms up
    }
  } finally {
    await context.dispose();
    await model.dispose();
  }
  return runs;
}

/** Our figures against llama.cpp's on the same weights, for every thread count: decode at each batch, and a long prefill. */
export async function benchVsLlamaCpp(opts: LlamaCompareOptions): Promise<LlamaCompareRow[]> {
  const o = { threads: [1], decodeBatches: [1, 16], promptTokens: 32, newTokens: 64, prefillTokens: 1024, repeats: 3, ggufDtype: 'f16' as const, loadLlama: loadLlamaCpp, ...opts };
  const { config } = o;
  if (o.newTokens < 2) throw new RangeError('newTokens must be at least 2 (decode speed is measured between the first and last token)');
  for (const need of [o.promptTokens + o.newTokens, o.prefillTokens + 2])
    if (need > config.maxSeqLen) throw new RangeError(`promptTokens + newTokens exceeds the model's maxSeqLen ${config.maxSeqLen}`);
  const prompt = (len: number, row: number) => Array.from({ length: len }, (_, i) => (i * 11 + row * 37 + 7) % config.vocabSize);
  const cases: Case[] = [
    ...o.decodeBatches.map((b): Case => ({ op: 'decode', prompts: Array.from({ length: b }, (_, row) => prompt(o.promptTokens, row)), newTokens: o.newTokens })),
    ...(o.prefillTokens > 0 ? [{ op: 'prefill' as const, prompts: [prompt(o.prefillTokens, 0)], newTokens: 2 }] : []),
  ];
  const label = (c: Case, threads: number) => `${c.op} batch ${c.prompts.length}, prompt ${c.prompts[0].length}, ${threads} thread${threads > 1 ? 's' : ''}`;

  const work = mkdtempSync(join(tmpdir(), 'envace-bench-llama-'));
  try {
    const gguf = join(work, 'gguf');
    const modelPath = join(gguf, `model-${o.ggufDtype}.gguf`);
    let llama: Awaited<ReturnType<LlamaModule['getLlama']>> | { error: string };
    try {
      // A model whose tokenizer the GGUF exporter cannot carry leaves llama.cpp's side empty, not ours.
      await exportModel({ config, weights: o.weights, tokenizer: o.tokenizer, format: 'gguf', ggufDtype: o.ggufDtype, outDir: gguf });
      const { getLlama, LlamaLogLevel } = await o.loadLlama();
      llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    } catch (e) {
      llama = { error: `reference unavailable: ${(e as Error).message}` };
    }
    const rows: LlamaCompareRow[] = [];
    for (const threads of o.threads) {
      const generator = await Generator.create(config, { intraOpThreads: threads }, { weights: 'baked' }); // as rollout turns run
      try {
        for (const c of cases) {
          o.onFigure?.(label(c, threads));
          const pick = (runs: Run[]) => runs.map((r) => (c.op === 'decode' ? r.decode : r.prefill));
          const ours = figure(pick(await oursCase(generator, o.weights, c, o.repeats)));
          let theirs: DecodeFigure | { error: string };
          if ('error' in llama) theirs = llama;
          else {
            try {
              theirs = figure(pick(await llamaCase(llama, modelPath, c, threads, o.repeats)));
            } catch (e) {
              theirs = { error: (e as Error).message };
            }
          }
          rows.push({
            op: c.op,
            batch: c.prompts.length,
            promptTokens: c.prompts[0].length,
            newTokens: c.newTokens,
            threads,
            ours,
            llamaCpp: theirs,
            ratio: 'error' in theirs ? null : ours.tokensPerSec / theirs.tokensPerSec,
          });
        }
      } finally {
        await generator.release();
      }
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Batch-1 decode of a preset with random weights against llama.cpp (the presets' `envace bench`). */
export async function benchLlamaCpp(opts: LlamaBenchOptions = {}): Promise<LlamaBenchResult> {
  const o = { preset: 'tiny' as PresetName, promptTokens: 32, newTokens: 64, repeats: 3, ggufDtype: 'f32' as const, threads: 1, ...opts };
  const base = PRESETS[o.preset];
  const config: ModelConfig = base.vocabSize >= MIN_VOCAB ? base : resolveConfig({ vocabSize: 320 }, base);
  if (o.promptTokens + o.newTokens > config.maxSeqLen)
    throw new RangeError(`promptTokens + newTokens exceeds the preset's maxSeqLen ${config.maxSeqLen}`);
  const [row] = await benchVsLlamaCpp({
    config,
    weights: initParams(config, 0),
    tokenizer: benchTokenizer(config),
    threads: [o.threads],
    decodeBatches: [1],
    promptTokens: o.promptTokens,
    newTokens: o.newTokens,
    prefillTokens: 0,
    repeats: o.repeats,
    ggufDtype: o.ggufDtype,
  });
  if ('error' in row.llamaCpp) throw new Error(row.llamaCpp.error);
  return {
    preset: o.preset,
    params: countParams(config),
    ggufDtype: o.ggufDtype,
    threads: o.threads,
    promptTokens: o.promptTokens,
    newTokens: o.newTokens,
    ours: row.ours,
    llamaCpp: row.llamaCpp,
    ratio: row.ratio!,
  };
}

// `envace bench --model NAME` / `--shape smollm2`: speed at a real model's size, each figure beside its
// reference measured in the same run at the same shape and thread count: the full and the LoRA train step
// against PyTorch, decode at batch 1 and 16 and the prefill of a 1k-token prompt against llama.cpp on the f16
// GGUF export of the same weights. Figures, never pass/fail. The machine's load average before and after goes
// with them: on shared cores it moves every figure, the references' too.

import { availableParallelism, loadavg } from 'node:os';
import {
  BENCH_SHAPES,
  type BenchShapeName,
  type LoraConfig,
  LORA_TARGETS,
  type ModelConfig,
  type Params,
  type TrainBenchResult,
  benchTrainConfig,
  countParams,
  initParams,
  measureGemmPeak,
} from '../../../native-models';
import { type DecodeFigure, type LlamaCompareOptions, type LlamaCompareRow, benchTokenizer, benchVsLlamaCpp } from './bench-llama';
import { loadModel } from './registry';

/** The LoRA the run recipes train by default (rank 8, alpha 16, attention and MLP). */
export const BENCH_LORA: LoraConfig = { rank: 8, alpha: 16, targets: [...LORA_TARGETS] };

export type RealBenchSource = { model: string; modelsDir: string } | { shape: BenchShapeName } | { config: ModelConfig; label: string };

export interface RealBenchOptions {
  source: RealBenchSource;
  /** Every figure is measured at each of these thread counts, both sides (default [1, 2]). */
  threads?: number[];
  /** Train batch (sequences) and length (default 2 × 256), untimed then timed steps (default 1 and 3). */
  train?: { batch?: number; seqLen?: number; steps?: number; warmupSteps?: number };
  lora?: LoraConfig;
  /** Decode and prefill lengths and timed runs per figure (bench-llama's defaults: 32 + 64 tokens, prefill 1024, 3 runs). */
  generate?: Pick<LlamaCompareOptions, 'decodeBatches' | 'promptTokens' | 'newTokens' | 'prefillTokens' | 'repeats'>;
  /** The PyTorch train-step reference (default true; reported unavailable where python3 or torch is missing). */
  torch?: boolean;
  pythonPath?: string;
  /** The llama.cpp reference (default true; reported unavailable where node-llama-cpp cannot be loaded). */
  llama?: boolean;
  loadLlama?: LlamaCompareOptions['loadLlama'];
  onProgress?: (line: string) => void;
}

export type RealBenchOp = 'train-full' | 'train-lora' | 'decode' | 'prefill';

/** One line of the table: our tokens/s, the reference's, their ratio. */
export interface RealBenchRow {
  op: RealBenchOp;
  threads: number;
  /** Sequences trained, or rows generated at once. */
  batch: number;
  /** Train sequence length, or prompt length. */
  tokens: number;
  /** Tokens generated per row (decode, prefill). */
  newTokens?: number;
  ours: DecodeFigure;
  reference: 'pytorch' | 'llama.cpp';
  /** The reference's figure, or why it is missing ('reference unavailable: …' when its runtime cannot be loaded). */
  theirs: { tokensPerSec: number } | { error: string };
  /** ours / reference tokens/s; null without the reference's figure. */
  ratio: number | null;
}

export interface RealBenchResult {
  model: string;
  source: 'imported' | 'shape';
  params: number;
  config: ModelConfig;
  ggufDtype: 'f16';
  cores: number;
  /** os.loadavg() (1, 5, 15 minutes) when the run started and when it ended. */
  loadAverage: { before: number[]; after: number[] };
  wallS: number;
  rows: RealBenchRow[];
  /** The train figures in full (MFU against the GEMM peak of the same thread count, step times, RSS). */
  train: TrainBenchResult[];
}

interface Resolved {
  label: string;
  source: RealBenchResult['source'];
  config: ModelConfig;
  weights: Params;
}

function resolveSource(s: RealBenchSource): Resolved {
  if ('model' in s) {
    const m = loadModel(s.modelsDir, s.model);
    return { label: s.model, source: 'imported', config: m.config, weights: m.weights };
  }
  const [label, config] = 'shape' in s ? [s.shape, BENCH_SHAPES[s.shape]] : [s.label, s.config];
  return { label, source: 'shape', config, weights: initParams(config, 0) };
}

const perSec = (tokens: number, ms: number) => tokens / (ms / 1000);

function trainRow(op: RealBenchOp, threads: number, r: TrainBenchResult, torch: boolean): RealBenchRow {
  const tokens = r.batch * r.seqLen;
  const theirs: RealBenchRow['theirs'] = !torch
    ? { error: 'reference off' }
    : r.torch && 'tokensPerSec' in r.torch
      ? { tokensPerSec: r.torch.tokensPerSec }
      : { error: `reference unavailable: ${r.torch?.error ?? 'no result'}` };
  return {
    op,
    threads,
    batch: r.batch,
    tokens: r.seqLen,
    ours: { tokensPerSec: r.tokensPerSec, runs: r.stepMsRuns.map((ms) => perSec(tokens, ms)) },
    reference: 'pytorch',
    theirs,
    ratio: 'tokensPerSec' in theirs ? r.tokensPerSec / theirs.tokensPerSec : null,
  };
}

function llamaRow(r: LlamaCompareRow, llama: boolean): RealBenchRow {
  const theirs = !llama ? { error: 'reference off' } : 'error' in r.llamaCpp ? r.llamaCpp : { tokensPerSec: r.llamaCpp.tokensPerSec };
  return { op: r.op, threads: r.threads, batch: r.batch, tokens: r.promptTokens, newTokens: r.newTokens, ours: r.ours, reference: 'llama.cpp', theirs, ratio: r.ratio };
}

export async function benchRealSize(opts: RealBenchOptions): Promise<RealBenchResult> {
  const started = performance.now();
  const before = loadavg();
  const threadCounts = opts.threads ?? [1, 2];
  const torch = opts.torch ?? true;
  const t = { batch: 2, seqLen: 256, steps: 3, warmupSteps: 1, ...opts.train };
  const say = opts.onProgress ?? (() => {});
  const m = resolveSource(opts.source);
  const lora = { ...m.config, lora: opts.lora ?? BENCH_LORA };

  const rows: RealBenchRow[] = [];
  const train: TrainBenchResult[] = [];
  for (const threads of threadCounts) {
    const gemmPeakGflops = await measureGemmPeak(1024, 10, threads);
    for (const [op, config] of [['train-full', m.config], ['train-lora', lora]] as const) {
      say(`${op} ${t.batch}×${t.seqLen}, ${threads} thread${threads > 1 ? 's' : ''}: ours, then PyTorch${torch ? '' : ' (off)'}…`);
      const r = await benchTrainConfig(`${m.label} ${op === 'train-lora' ? `LoRA r${lora.lora.rank}` : 'full'}`, config, {
        ...t,
        threads,
        torch,
        pythonPath: opts.pythonPath ?? '/usr/bin/python3',
        gemmPeakGflops,
        params: m.weights,
      });
      train.push(r);
      rows.push(trainRow(op, threads, r, torch));
    }
  }

  const llama = opts.llama ?? true;
  // Off: llama.cpp is never loaded; ours is still measured.
  const loadLlama = !llama
    ? async () => {
        throw new Error('reference off');
      }
    : opts.loadLlama;
  const generated = await benchVsLlamaCpp({
    config: m.config,
    weights: m.weights,
    // Both sides are fed token ids, never text: the GGUF carries a small byte-level tokenizer, which every
    // model's export accepts (an imported tokenizer's pre-tokenizer may have no llama.cpp equivalent).
    tokenizer: benchTokenizer(m.config),
    threads: threadCounts,
    ggufDtype: 'f16',
    ...opts.generate,
    ...(loadLlama ? { loadLlama } : {}),
    onFigure: (what) => say(`${what}: ours, then llama.cpp…`),
  });
  rows.push(...generated.map((r) => llamaRow(r, llama)));

  return {
    model: m.label,
    source: m.source,
    params: countParams(m.config),
    config: m.config,
    ggufDtype: 'f16',
    cores: availableParallelism(),
    loadAverage: { before, after: loadavg() },
    wallS: (performance.now() - started) / 1000,
    rows,
    train,
  };
}

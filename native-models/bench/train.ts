// Train-step throughput for the presets: tokens/s, model FLOP utilisation against a GEMM peak
// measured in the same run, peak RSS, and (when PyTorch is importable) the ratio against a PyTorch
// train step of the identical model with the same thread count. Figures, never pass/fail.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Graph } from '../graph/builder';
import * as F from '../graph/functional';
import { compileGraph } from '../graph/passes';
import { PRESETS, type PresetName } from '../presets';
import { createSession, ort } from '../runtime/session';
import { Trainer } from '../trainer';
import { type ModelConfig, headDim, paramSpecs } from '../transformer/config';
import type { Params } from '../transformer/init';
import { median } from './stats';

export interface TrainBenchOptions {
  presets?: PresetName[];
  batch?: number;
  seqLen?: number;
  /** Timed steps per preset; the median is reported. */
  steps?: number;
  /**
   * Untimed steps first, the same number on both sides (default 3): ORT's arena and the fresh
   * output buffers settle over the first steps (hundreds of thousands of page faults each).
   */
  warmupSteps?: number;
  /** ORT intra-op threads and torch.set_num_threads; default: ORT's choice / all cores. */
  threads?: number;
  /** Run the PyTorch reference when /usr/bin/python3 can import torch (default true). */
  torch?: boolean;
  pythonPath?: string;
}

export interface TrainBenchResult {
  preset: string;
  params: number;
  batch: number;
  seqLen: number;
  medianStepMs: number;
  /** Every timed step, in order. */
  stepMsRuns: number[];
  tokensPerSec: number;
  /** Model FLOPs per trained token: 6·(matmul params) + 12·L·H·D·T (attention). */
  flopsPerToken: number;
  achievedGflops: number;
  gemmPeakGflops: number;
  mfu: number;
  peakRssMb: number;
  torch?: { medianStepMs: number; tokensPerSec: number; peakRssMb: number } | { error: string };
  /** Our tokens/s over PyTorch's. */
  ratioVsTorch?: number;
}

/**
 * A full step: 2 FLOPs per matmul weight forward, 4 backward (input and weight gradients). With LoRA
 * the base is frozen: its weights get no gradient (4 per weight: forward and the input gradient that
 * must still flow down to the first layer's adapters), the adapters all 6.
 */
export function trainFlopsPerToken(c: ModelConfig, seqLen: number): number {
  const matmul = paramSpecs(c).filter((s) => s.shape.length === 2 && s.name !== 'model.embed_tokens.weight');
  const size = (s: (typeof matmul)[number]) => s.shape[0] * s.shape[1];
  const head = c.tiedEmbeddings ? c.vocabSize * c.dModel : 0;
  const base = matmul.filter((s) => !s.name.includes('.lora_')).reduce((n, s) => n + size(s), 0) + head;
  const adapters = matmul.filter((s) => s.name.includes('.lora_')).reduce((n, s) => n + size(s), 0);
  return (c.lora ? 4 : 6) * base + 6 * adapters + 12 * c.nLayers * c.nHeads * headDim(c) * seqLen;
}

/**
 * GFLOP/s of an ORT float32 MatMul [n,n]x[n,n] on the CPU provider, best of `repeats`: a peak is
 * what the kernel reaches, and on a shared machine the median of a few runs sometimes reads far
 * below it (MFU over 100 % then).
 */
export async function measureGemmPeak(n = 1024, repeats = 10, threads?: number): Promise<number> {
  const g = new Graph('gemm_peak');
  g.output(F.matmul(g.input('a', 'float32', [n, n]), g.input('b', 'float32', [n, n])), 'c');
  const { session } = await createSession(compileGraph(g), { intraOpThreads: threads });
  const data = new Float32Array(n * n).map((_, i) => ((i * 7919) % 1000) / 1000);
  const feeds = { a: new ort.Tensor('float32', data, [n, n]), b: new ort.Tensor('float32', data, [n, n]) };
  await session.run(feeds);
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await session.run(feeds);
    times.push(performance.now() - t0);
  }
  await session.release();
  return (2 * n ** 3) / (Math.min(...times) / 1000) / 1e9;
}

function torchReference(c: ModelConfig, o: ResolvedTrainOptions & { threads: number }): TrainBenchResult['torch'] {
  const script = fileURLToPath(new URL('../../test/bench/torch_train_step.py', import.meta.url));
  const r = spawnSync(o.pythonPath, [script, JSON.stringify(c), String(o.batch), String(o.seqLen), String(o.steps), String(o.threads), String(o.warmupSteps)], { encoding: 'utf8' });
  if (r.status !== 0) return { error: (r.stderr || r.error?.message || 'torch reference failed').trim().split('\n').pop()! };
  const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as { median_step_ms: number; tokens_per_sec: number; peak_rss_mb: number };
  return { medianStepMs: j.median_step_ms, tokensPerSec: j.tokens_per_sec, peakRssMb: j.peak_rss_mb };
}

type ResolvedTrainOptions = Required<Omit<TrainBenchOptions, 'presets' | 'threads'>> & { threads?: number };

const TRAIN_DEFAULTS = { batch: 8, seqLen: 256, steps: 3, warmupSteps: 3, torch: true, pythonPath: '/usr/bin/python3' };

/**
 * One train step measured on `config` (a preset, an imported model's shape, a LoRA variant of
 * either: then only the adapters train, on both sides), against PyTorch when asked. `params`: the
 * weights to start from (an imported model's); default initParams. `gemmPeakGflops`: measured once
 * by the caller for all the shapes of a run.
 */
export async function benchTrainConfig(
  label: string,
  c: ModelConfig,
  opts: Partial<ResolvedTrainOptions> & { gemmPeakGflops: number; params?: Params },
): Promise<TrainBenchResult> {
  const o = { ...TRAIN_DEFAULTS, ...opts };
  const threads = o.threads ?? (await import('node:os')).availableParallelism();
  const trainer = await Trainer.create({ config: c, objective: { sft: { aggregation: 'token-mean' } }, session: { intraOpThreads: o.threads }, seed: 0, params: o.params });
  const rows = Array.from({ length: o.batch }, (_, b) => Array.from({ length: o.seqLen + 1 }, (_, i) => (b * 131 + i * 17) % c.vocabSize));
  const batch = { tokens: rows, sftMask: rows.map((r) => r.map(() => 1)) };
  const times: number[] = [];
  try {
    for (let i = 0; i < o.warmupSteps; i++) await trainer.trainStep(batch);
    for (let i = 0; i < o.steps; i++) {
      const t0 = performance.now();
      await trainer.trainStep(batch);
      times.push(performance.now() - t0);
    }
  } finally {
    await trainer.release();
  }
  const stepMs = median(times);
  const tokensPerSec = (o.batch * o.seqLen) / (stepMs / 1000);
  const flopsPerToken = trainFlopsPerToken(c, o.seqLen);
  const achievedGflops = (tokensPerSec * flopsPerToken) / 1e9;
  const result: TrainBenchResult = {
    preset: label,
    params: paramSpecs(c).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0),
    batch: o.batch,
    seqLen: o.seqLen,
    medianStepMs: stepMs,
    stepMsRuns: times,
    tokensPerSec,
    flopsPerToken,
    achievedGflops,
    gemmPeakGflops: o.gemmPeakGflops,
    mfu: achievedGflops / o.gemmPeakGflops,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  if (o.torch) {
    const ref = torchReference(c, { ...o, threads });
    result.torch = ref;
    if (ref && 'tokensPerSec' in ref) result.ratioVsTorch = tokensPerSec / ref.tokensPerSec;
  }
  return result;
}

export async function benchTrain(opts: TrainBenchOptions = {}): Promise<TrainBenchResult[]> {
  const { presets = ['tiny', 'small'], ...rest } = opts;
  const gemmPeakGflops = await measureGemmPeak(1024, 10, opts.threads);
  const results: TrainBenchResult[] = [];
  for (const name of presets) results.push(await benchTrainConfig(name, PRESETS[name], { ...rest, gemmPeakGflops }));
  return results;
}

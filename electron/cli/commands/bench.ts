import type { Command } from 'commander';
import { BENCH_SHAPES, type BenchShapeName, type GenerateBenchResult, PRESETS, benchGenerate, benchTrain, benchTurns, type PresetName } from '../../../native-models';
import { homePaths, resolveHome } from '../../engine/home';
import { benchLlamaCpp, benchRealSize, type LlamaBenchResult, type RealBenchResult } from '../../engine/models';
import { CliError, EXIT, table } from '../output';
import { act, leaf, type CommonOptions } from './common';

interface BenchOptions extends CommonOptions {
  presets: string;
  model?: string;
  shape?: string;
  threadCounts: string;
  steps?: string;
  warmup?: string;
  threads?: string;
  batch?: string;
  seqLen?: string;
  torch: boolean;
  llama: boolean;
}

const PRESET_NAMES = ['nano', 'tiny', 'small'];

const int = (v: string | undefined, name: string) => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--${name} must be a positive integer`, EXIT.usage);
  return n;
};

const rate = (x: number) => (x >= 100 ? x.toFixed(0) : x.toPrecision(3));

function realTable(r: RealBenchResult): string {
  const what = (x: RealBenchResult['rows'][number]) =>
    x.op.startsWith('train') ? `${x.op} ${x.batch}×${x.tokens}` : x.op === 'decode' ? `decode batch ${x.batch} (prompt ${x.tokens}, ${x.newTokens} new)` : `prefill ${x.tokens} tokens`;
  const la = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  return [
    `${r.model} (${r.source === 'imported' ? 'imported' : 'shape, random weights'}, ${(r.params / 1e6).toFixed(1)}M parameters), ${r.cores} cores, load average ${la(r.loadAverage.before)} → ${la(r.loadAverage.after)}, ${r.wallS.toFixed(0)} s`,
    table([
      ['OP', 'THREADS', 'OURS TOK/S', 'REFERENCE', 'REFERENCE TOK/S', 'OURS/REFERENCE'],
      ...r.rows.map((x) => [
        what(x),
        String(x.threads),
        rate(x.ours.tokensPerSec),
        x.reference === 'llama.cpp' ? `llama.cpp ${r.ggufDtype}` : 'PyTorch',
        'tokensPerSec' in x.theirs ? rate(x.theirs.tokensPerSec) : `(${x.theirs.error.slice(0, 48)})`,
        x.ratio === null ? '-' : `${x.ratio.toFixed(2)}×`,
      ]),
    ]),
  ].join('\n');
}

function torchDecodeCell(t: GenerateBenchResult['torch']): string {
  if (!t) return '-';
  if ('error' in t) return `(${t.error.slice(0, 30)})`;
  return t.decodeTokensPerSec === null ? '-' : t.decodeTokensPerSec.toFixed(0);
}

/**
 * `envace bench`: figures measured side by side in one run (train-step tokens/s, MFU against the
 * GEMM peak of this run, the PyTorch reference ratio, generation tokens/s with prefill and decode
 * apart and their PyTorch KV-cache reference), never pass/fail.
 */
export function registerBench(program: Command): void {
  leaf(program.command('bench').description('performance figures: train step vs PyTorch, MFU, generation with the KV cache'))
    .option('--presets <list>', 'comma-separated presets', 'tiny,small')
    .option('--model <name>', 'real size: an imported model (data home): full and LoRA train step vs PyTorch, decode and 1k prefill vs llama.cpp f16')
    .option('--shape <name>', `real size with random weights: ${Object.keys(BENCH_SHAPES).join(', ')} (the same figures as --model)`)
    .option('--thread-counts <list>', 'real size: the thread counts every figure is measured at', '1,2')
    .option('--steps <n>', 'timed train steps (median reported; default 3)')
    .option('--warmup <n>', 'untimed train steps first, on both sides (default 3; 1 at real size)')
    .option('--batch <n>', 'train batch (sequences; default 8; 2 at real size)')
    .option('--seq-len <n>', 'train sequence length (default 256)')
    .option('--threads <n>', 'presets: threads for ORT and PyTorch (default: all cores)')
    .option('--no-torch', 'skip the PyTorch reference')
    .option('--no-llama', 'skip the llama.cpp comparison (node-llama-cpp, a dev dependency)')
    .action(
      act<BenchOptions>(async (_args, opts, out) => {
        if (opts.model !== undefined || opts.shape !== undefined) {
          if (opts.model !== undefined && opts.shape !== undefined) throw new CliError('give --model or --shape, not both', EXIT.usage);
          if (opts.shape !== undefined && !(opts.shape in BENCH_SHAPES))
            throw new CliError(`unknown shape ${opts.shape} (known: ${Object.keys(BENCH_SHAPES).join(', ')})`, EXIT.usage);
          const threadCounts = opts.threadCounts.split(',').map((v) => int(v.trim(), 'thread-counts')!);
          const source = opts.model !== undefined ? { model: opts.model, modelsDir: homePaths(resolveHome(opts.home)).models } : { shape: opts.shape as BenchShapeName };
          const train = { batch: int(opts.batch, 'batch'), seqLen: int(opts.seqLen, 'seq-len'), steps: int(opts.steps, 'steps'), warmupSteps: int(opts.warmup, 'warmup') };
          const real = await benchRealSize({
            source,
            threads: threadCounts,
            train: Object.fromEntries(Object.entries(train).filter(([, v]) => v !== undefined)),
            torch: opts.torch,
            llama: opts.llama,
            onProgress: (line) => out.line(line),
          });
          out.result(real, () => realTable(real));
          return;
        }
        const presets = opts.presets.split(',').map((p) => p.trim());
        const unknown = presets.filter((p) => !PRESET_NAMES.includes(p));
        if (unknown.length) throw new CliError(`unknown preset ${unknown.join(', ')} (known: ${PRESET_NAMES.join(', ')})`, EXIT.usage);
        const threads = int(opts.threads, 'threads');
        out.line(`measuring train steps (${presets.join(', ')}); PyTorch reference ${opts.torch ? 'on' : 'off'}…`);
        const train = await benchTrain({
          presets: presets as PresetName[],
          steps: int(opts.steps, 'steps') ?? 3,
          warmupSteps: int(opts.warmup, 'warmup') ?? 3,
          batch: int(opts.batch, 'batch') ?? 8,
          seqLen: int(opts.seqLen, 'seq-len') ?? 256,
          threads,
          torch: opts.torch,
        });
        out.line(`measuring generation with the KV cache (batch 1 and 16); PyTorch decode reference ${opts.torch ? 'on' : 'off'}…`);
        const generate = await benchGenerate({ presets: presets as PresetName[], threads, torch: opts.torch });
        // Cost per generated token must stay flat as the context grows (the KV cache at work); PyTorch
        // at the same contexts shows how much of any growth attention itself explains.
        // A GRPO group: 8 rollouts of one task start from the same prompt, which is prefilled once.
        out.line('measuring a group of 8 rollouts sharing one 256-token prompt…');
        const group = await benchGenerate({ presets: presets as PresetName[], batches: [8], promptLen: 256, newTokens: 32, threads, torch: opts.torch, sharedPrompt: true });
        out.line('measuring multi-turn rollouts: 8 conversations of 4 turns, with and without reusing earlier turns’ keys…');
        const turns = await benchTurns({ presets: presets as PresetName[], threads });
        out.line('measuring decode speed at short and long context…');
        const context: Awaited<ReturnType<typeof benchGenerate>> = [];
        const newTokens = 32;
        for (const name of presets) {
          // Prompt + new tokens end at 1024 (or the preset's whole context when shorter).
          const longPrompt = Math.min(1024, PRESETS[name as PresetName].maxSeqLen) - newTokens;
          for (const promptLen of [128, longPrompt]) context.push(...(await benchGenerate({ presets: [name as PresetName], batches: [1], promptLen, newTokens, threads, torch: opts.torch })));
        }
        const llama: Array<LlamaBenchResult | { preset: string; error: string }> = [];
        if (opts.llama) {
          out.line('measuring batch-1 decode against llama.cpp on the same model (GGUF f32, 1 thread)…');
          for (const name of presets) {
            llama.push(await benchLlamaCpp({ preset: name as PresetName, ggufDtype: 'f32', threads: 1 }).catch((e: Error) => ({ preset: name, error: e.message })));
          }
        }
        const ratio = (r: (typeof train)[number]) => (r.torch && 'tokensPerSec' in r.torch ? r.tokensPerSec / r.torch.tokensPerSec : null);
        const figures = {
          train: train.map((r) => ({ ...r, ratioVsTorch: ratio(r) })),
          generate,
          group,
          turns,
          context,
          llama,
        };
        out.result(figures, () =>
          [
            table([
              ['PRESET', 'PARAMS', 'BATCH×T', 'STEP ms', 'TOKENS/S', 'GEMM PEAK', 'MFU', 'RSS MB', 'TORCH TOK/S', 'OURS/TORCH'],
              ...figures.train.map((r) => [
                r.preset,
                `${(r.params / 1e6).toFixed(2)}M`,
                `${r.batch}×${r.seqLen}`,
                r.medianStepMs.toFixed(0),
                r.tokensPerSec.toFixed(0),
                `${r.gemmPeakGflops.toFixed(0)} GFLOP/s`,
                `${(r.mfu * 100).toFixed(1)}%`,
                r.peakRssMb.toFixed(0),
                r.torch && 'tokensPerSec' in r.torch ? r.torch.tokensPerSec.toFixed(0) : r.torch ? `(${r.torch.error.slice(0, 30)})` : '-',
                r.ratioVsTorch === null ? '-' : `${r.ratioVsTorch.toFixed(2)}×`,
              ]),
            ]),
            '',
            table([
              ['PRESET', 'BATCH', 'PROMPT', 'NEW', 'TOKENS/S', 'PREFILL TOK/S', 'DECODE TOK/S', 'RSS MB', 'TORCH DECODE TOK/S', 'OURS/TORCH', 'TOKENS AGREE'],
              ...[...generate, ...group, ...context].map((g) => [
                g.preset,
                String(g.batch),
                g.sharedPrompt ? `${g.promptLen} shared` : String(g.promptLen),
                String(g.newTokens),
                g.tokensPerSec.toFixed(0),
                g.prefillTokensPerSec.toFixed(0),
                g.decodeTokensPerSec === null ? '-' : g.decodeTokensPerSec.toFixed(0),
                g.peakRssMb.toFixed(0),
                torchDecodeCell(g.torch),
                g.ratioVsTorch === undefined ? '-' : `${g.ratioVsTorch.toFixed(2)}×`,
                g.agreement ? `${g.tokensAgree ? 'yes' : 'NO'} (${g.agreement.matchedSteps}/${g.agreement.comparedSteps})` : '-',
              ]),
            ]),
            '',
            table([
              ['PRESET', 'ROWS×TURNS', 'PROMPT', 'NEW/OBS PER TURN', 'EVERY TURN PREFILLED ms', 'REUSING KEYS ms', 'SPEEDUP'],
              ...turns.map((t) => [t.preset, `${t.rows}×${t.turns}`, String(t.promptLen), `${t.newTokens}/${t.observationTokens}`, t.fullMs.toFixed(0), t.reusedMs.toFixed(0), `${t.speedup.toFixed(2)}×`]),
            ]),
            ...(llama.length
              ? [
                  '',
                  table([
                    ['PRESET', 'OURS TOK/S', 'LLAMA.CPP TOK/S', 'OURS/LLAMA.CPP'],
                    ...llama.map((l) => ('error' in l ? [l.preset, '-', '-', `(${l.error.slice(0, 40)})`] : [l.preset, l.ours.tokensPerSec.toFixed(0), l.llamaCpp.tokensPerSec.toFixed(0), `${l.ratio.toFixed(2)}×`])),
                  ]),
                ]
              : []),
          ].join('\n'),
        );
      }),
    );
}

// Generation throughput with the KV cache (batch 1 and batch 16 by default): new tokens per second
// over a fixed prompt, greedy, no early stop, with prefill and decode timed apart; optionally the
// same decode in PyTorch on the identical weights and prompts. Figures, never pass/fail.
import { PRESETS, type PresetName } from '../presets';
import { Generator } from '../runtime/generate';
import { initParams } from '../transformer/init';
import { compareGreedy, runTorchGenerate, topTwoMargins } from './torch-generate';
import { median } from './stats';

export interface GenerateBenchOptions {
  presets?: PresetName[];
  batches?: number[];
  promptLen?: number;
  newTokens?: number;
  /** ORT intra-op threads and torch.set_num_threads; default: ORT's choice / all cores. */
  threads?: number;
  /** Also run test/bench/torch_generate.py on the identical model and prompts (default false). */
  torch?: boolean;
  pythonPath?: string;
  /** Leading steps whose greedy tokens are compared with PyTorch's (default 8). */
  agreeSteps?: number;
  /** Every row gets the same prompt, as a GRPO group's rollouts of one task do (prefilled once). */
  sharedPrompt?: boolean;
  /** Timed generations per row of figures, on both sides; medians are reported (default 3). */
  repeats?: number;
}

export interface GenerateBenchResult {
  preset: string;
  batch: number;
  promptLen: number;
  newTokens: number;
  sharedPrompt: boolean;
  /** Prefill + decode wall time. */
  wallMs: number;
  tokensPerSec: number;
  /** Prompt tokens of all rows over the time to the first sampled token (a shared prompt counts once per row). */
  prefillTokensPerSec: number;
  /** Tokens 2..N over the time after the first; null when only one token is generated. */
  decodeTokensPerSec: number | null;
  /** Highest resident set size seen at any step of the timed generation (sampled, this process). */
  peakRssMb: number;
  torch?: { prefillTokensPerSec: number; decodeTokensPerSec: number | null; peakRssMb: number } | { error: string };
  /** Our decode tokens/s over PyTorch's. */
  ratioVsTorch?: number;
  /** Greedy tokens equal PyTorch's at every compared step (near ties excluded); see compareGreedy. */
  tokensAgree?: boolean;
  agreement?: { comparedSteps: number; matchedSteps: number };
}

export async function benchGenerate(opts: GenerateBenchOptions = {}): Promise<GenerateBenchResult[]> {
  const o = { presets: ['tiny'] as PresetName[], batches: [1, 16], promptLen: 64, newTokens: 64, torch: false, pythonPath: '/usr/bin/python3', agreeSteps: 8, sharedPrompt: false, repeats: 3, ...opts };
  const threads = o.threads ?? (await import('node:os')).availableParallelism();
  const results: GenerateBenchResult[] = [];
  for (const name of o.presets) {
    const c = PRESETS[name];
    const gen = await Generator.create(c, { intraOpThreads: o.threads }, { weights: 'baked' }); // as rollout turns run (auto bakes calls of ≥ 96 tokens)
    const params = initParams(c, 0);
    for (const batch of o.batches) {
      const prompts = Array.from({ length: batch }, (_, b) => Array.from({ length: o.promptLen }, (_, i) => ((o.sharedPrompt ? 0 : b) * 37 + i * 11) % c.vocabSize));
      // Warm-up, which also records our top-2 margins for the comparison with PyTorch (untimed).
      const margins: number[][] = prompts.map(() => []);
      const checkSteps = Math.min(o.agreeSteps, o.newTokens);
      const check = await gen.generate(params, prompts, {
        maxNewTokens: Math.max(2, checkSteps),
        temperature: 0,
        onStep: (step, logits) => step < checkSteps && topTwoMargins(logits, c.vocabSize).forEach((m, b) => margins[b].push(m)),
      });
      // Medians over repeated generations: one run on this machine is noisy.
      const runs: Array<{ wallMs: number; prefillMs: number; decodeMs: number; steps: number; generated: number }> = [];
      let peakRss = process.memoryUsage.rss();
      for (let r = 0; r < o.repeats; r++) {
        const stamps: number[] = [];
        const t0 = performance.now();
        const out = await gen.generate(params, prompts, {
          maxNewTokens: o.newTokens,
          temperature: 0,
          onStep: () => {
            stamps.push(performance.now());
            // The process's maxRSS would carry whatever ran before (the train bench): sample RSS per step instead.
            peakRss = Math.max(peakRss, process.memoryUsage.rss());
          },
        });
        runs.push({
          wallMs: performance.now() - t0,
          prefillMs: stamps[0] - t0,
          decodeMs: stamps[stamps.length - 1] - stamps[0],
          steps: stamps.length,
          generated: out.reduce((n, g) => n + g.tokens.length, 0),
        });
      }
      const mid = (f: (x: (typeof runs)[number]) => number) => median(runs.map(f));
      const steps = runs[0].steps;
      const result: GenerateBenchResult = {
        preset: name,
        batch,
        promptLen: o.promptLen,
        newTokens: o.newTokens,
        sharedPrompt: o.sharedPrompt,
        wallMs: mid((x) => x.wallMs),
        tokensPerSec: runs[0].generated / (mid((x) => x.wallMs) / 1000),
        prefillTokensPerSec: (batch * o.promptLen) / (mid((x) => x.prefillMs) / 1000),
        decodeTokensPerSec: steps > 1 ? (batch * (steps - 1)) / (mid((x) => x.decodeMs) / 1000) : null,
        peakRssMb: peakRss / 2 ** 20,
      };
      if (o.torch) {
        const ref = runTorchGenerate({ config: c, params, prompts, newTokens: o.newTokens, threads, pythonPath: o.pythonPath, repeats: o.repeats });
        if ('error' in ref) result.torch = ref;
        else {
          result.torch = { prefillTokensPerSec: ref.prefillTokensPerSec, decodeTokensPerSec: ref.decodeTokensPerSec, peakRssMb: ref.peakRssMb };
          if (result.decodeTokensPerSec !== null && ref.decodeTokensPerSec) result.ratioVsTorch = result.decodeTokensPerSec / ref.decodeTokensPerSec;
          const a = compareGreedy(check.map((g) => g.tokens), ref.tokens, margins);
          result.tokensAgree = a.agree;
          result.agreement = { comparedSteps: a.comparedSteps, matchedSteps: a.matchedSteps };
        }
      }
      results.push(result);
    }
    await gen.release();
  }
  return results;
}

export interface TurnsBenchResult {
  preset: string;
  rows: number;
  turns: number;
  promptLen: number;
  newTokens: number;
  observationTokens: number;
  /** Whole conversation, prefilling every turn's full prompt. */
  fullMs: number;
  /** The same with each turn's prompt starting from the keys of the turn before. */
  reusedMs: number;
  speedup: number;
}

/**
 * A multi-turn rollout in miniature: `rows` conversations of `turns` turns over prompts that share
 * their first three quarters, each turn generating `newTokens` then appending an observation; timed
 * with and without reusing keys (the shared opening, then each row's earlier turns; medians of
 * `repeats`). Sampling at temperature 1, the rollout setting.
 */
export async function benchTurns(opts: { presets?: PresetName[]; rows?: number; turns?: number; promptLen?: number; newTokens?: number; observationTokens?: number; threads?: number; repeats?: number } = {}): Promise<TurnsBenchResult[]> {
  const o = { presets: ['tiny'] as PresetName[], rows: 8, turns: 4, promptLen: 256, newTokens: 48, observationTokens: 40, repeats: 3, ...opts };
  const results: TurnsBenchResult[] = [];
  for (const name of o.presets) {
    const c = PRESETS[name];
    const gen = await Generator.create(c, { intraOpThreads: o.threads }, { weights: 'baked' }); // as rollout turns run (auto bakes calls of ≥ 96 tokens)
    const params = initParams(c, 0);
    const conversation = async (reusePrefixes: boolean) => {
      await gen.forgetPrefixes();
      // As in a batch of rollouts: the first three quarters (system block, tools) shared, then each row's own task.
      const shared = Math.floor((o.promptLen * 3) / 4);
      let prompts = Array.from({ length: o.rows }, (_, b) => Array.from({ length: o.promptLen }, (_, i) => (i * 13 + (i < shared ? 0 : b * 7)) % c.vocabSize));
      const t0 = performance.now();
      for (let turn = 0; turn < o.turns; turn++) {
        const out = await gen.generate(params, prompts, { maxNewTokens: o.newTokens, temperature: 1, seed: turn, reusePrefixes });
        prompts = prompts.map((p, b) => [...p, ...out[b].tokens, ...Array.from({ length: o.observationTokens }, (_, i) => (i * 7 + b + turn) % c.vocabSize)]);
      }
      return performance.now() - t0;
    };
    await conversation(true); // warm-up (bakes the weights)
    const full: number[] = [];
    const reused: number[] = [];
    for (let r = 0; r < o.repeats; r++) {
      full.push(await conversation(false));
      reused.push(await conversation(true));
    }
    await gen.release();
    const [fullMs, reusedMs] = [median(full), median(reused)];
    results.push({ preset: name, rows: o.rows, turns: o.turns, promptLen: o.promptLen, newTokens: o.newTokens, observationTokens: o.observationTokens, fullMs, reusedMs, speedup: fullMs / reusedMs });
  }
  return results;
}

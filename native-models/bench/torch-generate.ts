// The PyTorch side of the generation benchmark: hands the identical weights (safetensors) and
// prompts to test/bench/torch_generate.py, a greedy KV-cache decode in PyTorch, and compares its
// greedy tokens with ours where the choice is not a near tie.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostTensor } from '../io/dtype';
import { writeSafetensors } from '../io/safetensors';
import { type ModelConfig, paramSpecs } from '../transformer/config';
import type { Params } from '../transformer/init';

export interface TorchGenerateRun {
  prefillTokensPerSec: number;
  /** null when only one token was generated (no decode step). */
  decodeTokensPerSec: number | null;
  /** Greedy tokens per row. */
  tokens: number[][];
  peakRssMb: number;
}

export interface TorchGenerateRequest {
  config: ModelConfig;
  params: Params;
  /** Rows of one length: the script does not pad. */
  prompts: number[][];
  newTokens: number;
  threads: number;
  pythonPath?: string;
  /** Timed generations; the median prefill and decode times are reported (default 1). */
  repeats?: number;
}

const SCRIPT = fileURLToPath(new URL('../../test/bench/torch_generate.py', import.meta.url));

/** Runs the PyTorch decode; a missing torch or a failing script comes back as `{ error }` with its last stderr line. */
export function runTorchGenerate(r: TorchGenerateRequest): TorchGenerateRun | { error: string } {
  const tensors = new Map<string, HostTensor>();
  for (const s of paramSpecs(r.config)) {
    const data = r.params.get(s.name);
    if (!data) return { error: `missing parameter ${s.name}` };
    tensors.set(s.name, { dtype: 'F32', shape: [...s.shape], data });
  }
  const dir = mkdtempSync(join(tmpdir(), 'envace-torch-generate-'));
  try {
    const weights = join(dir, 'weights.safetensors');
    const prompts = join(dir, 'prompts.json');
    writeSafetensors(weights, tensors);
    writeFileSync(prompts, JSON.stringify(r.prompts));
    const args = [SCRIPT, JSON.stringify(r.config), weights, prompts, String(r.newTokens), String(r.threads), String(r.repeats ?? 1)];
    const p = spawnSync(r.pythonPath ?? '/usr/bin/python3', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (p.status !== 0) return { error: (p.stderr || p.error?.message || 'torch reference failed').trim().split('\n').pop()! };
    let j: { prefill_tokens_per_s: number; decode_tokens_per_s: number | null; tokens: number[][]; peak_rss_mb: number };
    try {
      j = JSON.parse(p.stdout.trim().split('\n').pop()!);
    } catch {
      return { error: `torch reference printed no JSON line: ${p.stdout.slice(-200)}` };
    }
    return { prefillTokensPerSec: j.prefill_tokens_per_s, decodeTokensPerSec: j.decode_tokens_per_s, tokens: j.tokens, peakRssMb: j.peak_rss_mb };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Top-1 minus top-2 logit of every row of a [B·V] logits block. */
export function topTwoMargins(logits: Float32Array, vocabSize: number): number[] {
  const margins: number[] = [];
  for (let at = 0; at < logits.length; at += vocabSize) {
    let [a, b] = [-Infinity, -Infinity];
    for (let i = at; i < at + vocabSize; i++) {
      const v = logits[i];
      if (v > a) [a, b] = [v, a];
      else if (v > b) b = v;
    }
    margins.push(a - b);
  }
  return margins;
}

export interface GreedyAgreement {
  /** False when some row picked a different token at a step where our margin was clear. */
  agree: boolean;
  /** Steps compared over all rows (a row stops being compared at its first near tie). */
  comparedSteps: number;
  matchedSteps: number;
}

/**
 * Compares greedy tokens row by row over `margins[b].length` steps. Float32 rounding differs between
 * the two runtimes, so a step whose top-2 margin (ours) is below `minMargin` may legitimately go
 * either way: it is not counted, and if the two picked differently there the row is not compared further
 * (the continuations legitimately diverge).
 */
export function compareGreedy(ours: number[][], theirs: number[][], margins: number[][], minMargin = 1e-3): GreedyAgreement {
  let [comparedSteps, matchedSteps, agree] = [0, 0, true];
  ours.forEach((row, b) => {
    for (let s = 0; s < margins[b].length && s < row.length; s++) {
      const clear = margins[b][s] >= minMargin;
      if (row[s] !== theirs[b]?.[s]) {
        if (clear) {
          comparedSteps++;
          agree = false;
        }
        break;
      }
      if (clear) {
        comparedSteps++;
        matchedSteps++;
      }
    }
  });
  return { agree, comparedSteps, matchedSteps };
}

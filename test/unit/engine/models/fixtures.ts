// Shared fixtures for the engine/models tests: a small trained tokenizer and a nano model sized to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ModelConfig,
  type Params,
  PRESETS,
  type TextTokenizer,
  Trainer,
  buildLogprobsGraph,
  compileGraph,
  createSession,
  initParams,
  paramSpecs,
  resolveConfig,
  trainTokenizer,
} from '../../../../native-models';
import * as ort from 'onnxruntime-node';

export const CORPUS = [
  'the cat sat on the mat and looked at the door',
  'a dog ran to the park and back to the house',
  'open the box, take the key, unlock the door',
  'search flights from paris to rome for monday',
  'the agent calls a tool and reads the result',
];

let cached: TextTokenizer | undefined;

/** A byte-level BPE tokenizer (our specials + bytes + a few dozen merges). */
export function smallTokenizer(): TextTokenizer {
  cached ??= trainTokenizer(
    Array.from({ length: 20 }, (_, i) => CORPUS[i % CORPUS.length]),
    { vocabSize: 320 },
  );
  return cached;
}

/** nano with a vocabulary wide enough for the tokenizer (320 rows; unused rows are padding). */
export function nanoConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return resolveConfig({ vocabSize: 320, ...overrides }, PRESETS.nano);
}

/** Random weights; std 0.3 rather than 0.02 gives logits that differ clearly between tokens. */
export function randomWeights(config: ModelConfig, seed = 1, std = 0.3): Params {
  const params = initParams(config, seed, std);
  // Norm weights and LoRA B start at 1 / 0; perturb them so every tensor's layout matters in comparisons.
  let k = 0;
  for (const [name, w] of params) {
    if (name.endsWith('norm.weight') || name.endsWith('lora_B.weight') || name.endsWith('.bias')) {
      for (let i = 0; i < w.length; i++) w[i] += 0.2 * Math.sin(++k * 1.7);
    }
  }
  return params;
}

/**
 * A Trainer after `steps` SFT steps on the whole corpus (lr 1e-2): it has memorised the corpus, so
 * greedy picks win by clear margins and loaders can be compared token for token. Release it after use.
 */
export async function trainedOnCorpus(config: ModelConfig, steps: number): Promise<Trainer> {
  const rows = CORPUS.map((s) => smallTokenizer().encode(s));
  const trainer = await Trainer.create({
    config,
    objective: { sft: { aggregation: 'token-mean' } },
    optimizer: { lr: 1e-2, totalSteps: steps, weightDecay: 0 },
    seed: 3,
  });
  for (let i = 0; i < steps; i++) await trainer.trainStep({ tokens: rows, sftMask: rows.map((r) => r.map(() => 1)) });
  return trainer;
}

export function tempDirs(): { make: (prefix?: string) => string; cleanup: () => void } {
  const dirs: string[] = [];
  return {
    make: (prefix = 'envace-models-') => {
      const d = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    cleanup: () => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })),
  };
}

/** Our full-sequence logits [rows·T, V] for equal-length rows (no padding), from the logprobs graph. */
export async function ourLogits(config: ModelConfig, params: Params, rows: number[][]): Promise<Float32Array> {
  const [B, T] = [rows.length, rows[0].length];
  const session = (await createSession(compileGraph(buildLogprobsGraph(config, { withLogits: true })))).session;
  const i64 = (values: number[]) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from(values, (v) => BigInt(v)),
      [B, T],
    );
  const feeds: Record<string, ort.Tensor> = {
    input_ids: i64(rows.flat()),
    attention_mask: i64(rows.flat().map(() => 1)),
    position_ids: i64(rows.flatMap((r) => r.map((_, t) => t))),
    targets: i64(rows.flat()),
  };
  for (const s of paramSpecs(config)) feeds[s.name] = new ort.Tensor('float32', params.get(s.name)!, [...s.shape]);
  const out = await session.run(feeds);
  await session.release();
  return out.logits.data as Float32Array;
}

/** max |a − b| / max |b|: one relative figure for a whole tensor. */
export function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return diff / scale;
}

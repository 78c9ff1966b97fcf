import fs from 'node:fs';
import path from 'node:path';
import { RunConfig, type RunConfigInput } from '../../electron/contract';
import { NativePolicy } from '../../electron/engine/algorithms';
import { MODEL_DIR, TOKENIZER_DIR } from '../../electron/engine/algorithms/context';
import type { Engine } from '../../electron/engine/host';

/**
 * A stored run with one real checkpoint of an untrained policy (random weights, a tokenizer
 * trained on the environment's texts): enough for the policy-backed methods to run for real.
 */
export async function seedCheckpointedRun(engine: Engine, input: RunConfigInput, corpus: string[]): Promise<{ runId: string; step: number }> {
  const config = RunConfig.parse(input);
  const store = engine.services.store;
  const runId = `run-seeded-${Math.random().toString(36).slice(2, 8)}`;
  store.runs.insert({ id: runId, config });
  const dir = path.join(engine.services.paths.runs, runId, 'checkpoints', 'step-1');
  fs.mkdirSync(path.join(dir, TOKENIZER_DIR), { recursive: true });
  const policy = await NativePolicy.create({ preset: 'nano', corpus, seed: 0, optimizer: {}, knobs: {} });
  try {
    policy.save(path.join(dir, MODEL_DIR));
    policy.tokenizer.save(path.join(dir, TOKENIZER_DIR));
  } finally {
    await policy.release();
  }
  store.runs.addCheckpoint(runId, 1, dir);
  store.runs.update(runId, { status: 'completed', currentStep: 1 });
  return { runId, step: 1 };
}

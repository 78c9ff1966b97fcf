// A training run's checkpoint as an exportable model: the config the trainer stored with it, its
// weights (checked against that config) and the run's tokenizer.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckpoint, loadTokenizer, ModelConfigSchema, readTrainerState, paramSpecs, type ModelConfig, type Params, type TextTokenizer } from '../../../native-models';
import { MODEL_DIR, TOKENIZER_DIR } from '../algorithms/context';

export class RunCheckpointError extends Error {
  override name = 'RunCheckpointError';
}

export interface RunCheckpointModel {
  config: ModelConfig;
  weights: Params;
  tokenizer: TextTokenizer;
}

export function loadRunCheckpoint(checkpointDir: string): RunCheckpointModel {
  const modelDir = join(checkpointDir, MODEL_DIR);
  if (!existsSync(modelDir)) throw new RunCheckpointError(`${checkpointDir} is not a run checkpoint (no ${MODEL_DIR}/ folder)`);
  // The config is read first (without weights) so the weights can be checked against it.
  const { state } = readTrainerState(modelDir);
  const parsed = ModelConfigSchema.safeParse((state as { config?: unknown } | null)?.config);
  if (!parsed.success) throw new RunCheckpointError(`checkpoint ${checkpointDir} carries no valid model config: ${parsed.error.issues[0]?.message}`);
  const config = parsed.data as ModelConfig;
  const specs = paramSpecs(config);
  const spec = (s: (typeof specs)[number]) => ({ name: s.name, shape: [...s.shape], dtype: 'F32' as const });
  // A LoRA run trains adapters; its frozen base is stored beside them (checkpoints since frozen weights were kept).
  const checkpoint = loadCheckpoint(modelDir, specs.filter((s) => s.trainable).map(spec), specs.filter((s) => !s.trainable).map(spec));
  if (config.lora && !checkpoint.frozen) throw new RunCheckpointError('this checkpoint holds LoRA adapters without their base weights; export its adapters with --format lora from the base model');
  const stored = new Map([...(checkpoint.frozen ?? []), ...checkpoint.weights]);
  const weights: Params = new Map(specs.map((s) => [s.name, stored.get(s.name)!.data as Float32Array]));
  return { config, weights, tokenizer: loadTokenizer(join(checkpointDir, TOKENIZER_DIR)) };
}

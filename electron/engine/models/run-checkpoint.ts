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
  if (config.lora) throw new RunCheckpointError('this run trained LoRA adapters only; export its adapters with --format lora from the base model');
  const specs = paramSpecs(config);
  const checkpoint = loadCheckpoint(
    modelDir,
    specs.map((s) => ({ name: s.name, shape: [...s.shape], dtype: 'F32' })),
  );
  const weights: Params = new Map(specs.map((s) => [s.name, checkpoint.weights.get(s.name)!.data as Float32Array]));
  return { config, weights, tokenizer: loadTokenizer(join(checkpointDir, TOKENIZER_DIR)) };
}

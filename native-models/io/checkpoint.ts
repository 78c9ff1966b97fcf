// Training checkpoints: one folder, written atomically, holding
//   weights.safetensors    the trainable tensors (Hugging Face names)
//   optimizer.safetensors  AdamW moments, `m.<name>` and `v.<name>` (absent when there is no optimizer state)
//   frozen.safetensors     weights that are not trained (a LoRA run's base model), so the folder is whole
//   trainer_state.json     {format, version, savedAt, state}: step, RNG, schedule… (whatever the trainer keeps)
// Loading validates everything against the model's spec before any tensor is handed out.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostTensor } from './dtype';
import { recoverAtomicDir, writeDirAtomicSync } from './atomic';
import { SafetensorsError, type TensorInput, type TensorMap, readSafetensors, writeSafetensors } from './safetensors';
import { type SpecProblem, type TensorSpec, checkTensorsAgainstSpec, describeProblems } from './tensor-spec';

export const CHECKPOINT_FORMAT = 'envace-checkpoint';
export const CHECKPOINT_VERSION = 1;
export const WEIGHTS_FILE = 'weights.safetensors';
export const OPTIMIZER_FILE = 'optimizer.safetensors';
export const TRAINER_STATE_FILE = 'trainer_state.json';
export const FROZEN_FILE = 'frozen.safetensors';

export type CheckpointErrorCode =
  | 'MISSING_FILE'
  | 'CORRUPT_FILE'
  | 'MISSING_TENSOR'
  | 'UNEXPECTED_TENSOR'
  | 'SHAPE_MISMATCH'
  | 'DTYPE_MISMATCH'
  | 'BAD_STATE'
  | 'UNSUPPORTED_VERSION';

export class CheckpointError extends Error {
  override name = 'CheckpointError';
  constructor(
    readonly code: CheckpointErrorCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

export interface OptimizerMoments<T = TensorInput> {
  m: T;
  v: T;
}

export interface CheckpointInput {
  weights: TensorInput;
  optimizer?: OptimizerMoments;
  /** Weights kept as they are (no moments): a LoRA run's frozen base. */
  frozen?: TensorInput;
  /** Must survive JSON.stringify (numbers, strings, arrays, plain objects). */
  trainerState: unknown;
}

export interface Checkpoint {
  weights: TensorMap;
  optimizer?: OptimizerMoments<TensorMap>;
  /** Present when the checkpoint has frozen weights and the caller asked for them. */
  frozen?: TensorMap;
  trainerState: unknown;
  savedAt: string;
}

const toMap = (t: TensorInput): TensorMap => (t instanceof Map ? t : new Map(Object.entries(t)));

const codeFor: Record<SpecProblem['kind'], CheckpointErrorCode> = {
  missing: 'MISSING_TENSOR',
  unexpected: 'UNEXPECTED_TENSOR',
  shape: 'SHAPE_MISMATCH',
  dtype: 'DTYPE_MISMATCH',
};

function assertMatches(where: string, tensors: ReadonlyMap<string, HostTensor>, expected: readonly TensorSpec[]): void {
  const problems = checkTensorsAgainstSpec(tensors, expected);
  if (problems.length > 0) throw new CheckpointError(codeFor[problems[0].kind], `${where}: ${describeProblems(problems)}`);
}

export function saveCheckpoint(dir: string, data: CheckpointInput): void {
  const weights = toMap(data.weights);
  const spec: TensorSpec[] = [...weights].map(([name, t]) => ({ name, shape: t.shape, dtype: t.dtype }));
  let moments: TensorMap | undefined;
  if (data.optimizer) {
    // Moments must pair up with the weights one to one, or a resumed run would silently reset some.
    assertMatches('optimizer moment m', toMap(data.optimizer.m), spec);
    assertMatches('optimizer moment v', toMap(data.optimizer.v), spec);
    moments = new Map();
    for (const [name, t] of toMap(data.optimizer.m)) moments.set(`m.${name}`, t);
    for (const [name, t] of toMap(data.optimizer.v)) moments.set(`v.${name}`, t);
  }
  let stateJson: string;
  try {
    stateJson = JSON.stringify(
      { format: CHECKPOINT_FORMAT, version: CHECKPOINT_VERSION, savedAt: new Date().toISOString(), state: data.trainerState },
      null,
      2,
    );
  } catch (e) {
    throw new CheckpointError('BAD_STATE', `trainer state is not JSON-serialisable (${(e as Error).message})`, e);
  }
  writeDirAtomicSync(dir, (tmp) => {
    writeSafetensors(join(tmp, WEIGHTS_FILE), weights, { format: 'pt' });
    if (moments) writeSafetensors(join(tmp, OPTIMIZER_FILE), moments, { format: 'pt' });
    if (data.frozen) writeSafetensors(join(tmp, FROZEN_FILE), toMap(data.frozen), { format: 'pt' });
    writeFileSync(join(tmp, TRAINER_STATE_FILE), stateJson);
  });
}

function readTensors(dir: string, file: string): TensorMap {
  const path = join(dir, file);
  if (!existsSync(path)) throw new CheckpointError('MISSING_FILE', `${path} does not exist`);
  try {
    return readSafetensors(path).tensors;
  } catch (e) {
    if (e instanceof SafetensorsError) throw new CheckpointError('CORRUPT_FILE', `${e.message} [${e.code}]`, e);
    throw e;
  }
}

/** The trainer state of a checkpoint without reading its tensors (e.g. to learn the model config first). */
export function readTrainerState(dir: string): { state: unknown; savedAt: string } {
  const path = join(dir, TRAINER_STATE_FILE);
  if (!existsSync(path)) throw new CheckpointError('MISSING_FILE', `${path} does not exist`);
  let json: { format?: unknown; version?: unknown; savedAt?: unknown; state?: unknown };
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CheckpointError('BAD_STATE', `${path} is not valid JSON (${(e as Error).message})`, e);
  }
  if (json === null || typeof json !== 'object' || json.format !== CHECKPOINT_FORMAT) {
    throw new CheckpointError('BAD_STATE', `${path} is not an ${CHECKPOINT_FORMAT} trainer state (format ${JSON.stringify(json?.format)})`);
  }
  if (typeof json.version !== 'number' || !Number.isInteger(json.version) || json.version < 1 || json.version > CHECKPOINT_VERSION) {
    throw new CheckpointError(
      'UNSUPPORTED_VERSION',
      `${path} has format version ${JSON.stringify(json.version)}; this build reads versions 1..${CHECKPOINT_VERSION}`,
    );
  }
  return { state: json.state, savedAt: typeof json.savedAt === 'string' ? json.savedAt : '' };
}

/**
 * Load a checkpoint and check it against the model: every expected tensor present with the expected shape
 * and dtype, nothing extra, optimizer moments (if saved) likewise. Throws CheckpointError naming the tensor.
 */
export function loadCheckpoint(dir: string, expected: readonly TensorSpec[], expectedFrozen: readonly TensorSpec[] = []): Checkpoint {
  if (!recoverAtomicDir(dir)) throw new CheckpointError('MISSING_FILE', `checkpoint folder ${dir} does not exist`);
  const { state, savedAt } = readTrainerState(dir);
  const weights = readTensors(dir, WEIGHTS_FILE);
  assertMatches(join(dir, WEIGHTS_FILE), weights, expected);
  // Frozen weights are read when asked for and present; a checkpoint from before they were saved has none.
  let frozen: TensorMap | undefined;
  if (expectedFrozen.length > 0 && existsSync(join(dir, FROZEN_FILE))) {
    frozen = readTensors(dir, FROZEN_FILE);
    assertMatches(join(dir, FROZEN_FILE), frozen, expectedFrozen);
  }
  if (!existsSync(join(dir, OPTIMIZER_FILE))) return { weights, frozen, trainerState: state, savedAt };

  const stored = readTensors(dir, OPTIMIZER_FILE);
  const m: TensorMap = new Map();
  const v: TensorMap = new Map();
  const stray: string[] = [];
  for (const [name, t] of stored) {
    if (name.startsWith('m.')) m.set(name.slice(2), t);
    else if (name.startsWith('v.')) v.set(name.slice(2), t);
    else stray.push(name);
  }
  if (stray.length > 0) {
    throw new CheckpointError('UNEXPECTED_TENSOR', `${join(dir, OPTIMIZER_FILE)}: tensor "${stray[0]}" is neither an m. nor a v. moment`);
  }
  assertMatches(`${join(dir, OPTIMIZER_FILE)} (moment m)`, m, expected);
  assertMatches(`${join(dir, OPTIMIZER_FILE)} (moment v)`, v, expected);
  return { weights, optimizer: { m, v }, frozen, trainerState: state, savedAt };
}

// The base a run's LoRA adapters apply to. A run on an imported model trains adapters on that model with our
// role markers added to its vocabulary (NativePolicy.fromPretrained: one embedding row per marker its tokenizer
// lacked), so the adapters apply to that grown model, not to the folder it was imported from, and the grown
// model exists only in the run's checkpoints (their frozen weights). A LoRA export writes it beside the adapter
// (base/) where it grew, names the base it applies to, and says so in words.

import type { LoraBaseChoice } from '../../contract';
import type { ModelConfig, TextTokenizer } from '../../../native-models';
import { type LoraBaseOptions, LORA_BASE_DIR } from './export';

export interface LoraBaseFacts {
  runId: string;
  /** The imported model the run trained on (its config's model.imported). */
  imported: string;
  /** That model in the data home's models folder, or null when it is no longer there. */
  entry: { path: string; source: string; vocabSize: number } | null;
  /** The checkpoint's model and tokenizer: the vocabulary as training grew it. */
  config: ModelConfig;
  tokenizer: TextTokenizer;
}

export class LoraBaseError extends Error {
  override name = 'LoraBaseError';
}

const quote = JSON.stringify;

/** Where the base goes (base/ or a named folder) and the sentences that say which base it is. */
export function loraBasePlan(f: LoraBaseFacts, choice: LoraBaseChoice): LoraBaseOptions {
  const vocab = f.config.vocabSize;
  const added = f.entry ? vocab - f.entry.vocabSize : null;
  const grown = added === null || added > 0;
  const writeBase = choice === 'include' || (choice === 'auto' && grown);
  const model = `imported model ${quote(f.imported)}`;
  let what: string;
  if (added === null) {
    what = `${model} (no longer in the models folder) with the role markers in its ${vocab}-token vocabulary, as the run's checkpoint holds it.`;
  } else if (added > 0) {
    const markers = Array.from({ length: added }, (_, i) => f.tokenizer.idToToken(f.entry!.vocabSize + i) ?? `id ${f.entry!.vocabSize + i}`);
    what =
      `${model} with ${added} embedding rows added for the role markers its tokenizer lacked (${markers.join(', ')}; vocabulary ${f.entry!.vocabSize} → ${vocab}). ` +
      `The folder it was imported from (${f.entry!.source}) lacks those rows: the adapter does not apply to it.`;
  } else {
    what = `${model} as imported (its tokenizer already held the role markers; vocabulary ${vocab}), from ${f.entry!.source}.`;
  }
  const notes = [`The adapter applies to the model run ${f.runId} trained on: ${what}`];
  if (writeBase) {
    notes.push(`That base is in ${LORA_BASE_DIR}/ (its weights and tokenizer as a Hugging Face folder), and adapter_config.json names it.`);
    return { writeBase, notes };
  }
  if (!f.entry) {
    throw new LoraBaseError(
      `run ${f.runId} trained on ${model}, which is no longer in the models folder, so only an export with its base can name one; export without omitting the base`,
    );
  }
  notes.push(
    grown
      ? `That base is not in this folder (left out on request): adapter_config.json names the imported folder ${f.entry.path}, which lacks those rows; load the adapter onto the ${LORA_BASE_DIR}/ of an export of this run that has it.`
      : `adapter_config.json names it by its folder in the data home: ${f.entry.path}.`,
  );
  return { baseModel: f.entry.path, writeBase, notes };
}

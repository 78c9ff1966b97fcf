// README.md of an exported model: what it is, how it was trained, what it scored. Hugging Face reads the
// YAML front matter for the hub's metadata panel.

import { type ModelConfig, countParams } from '../../../native-models';

/** One stored held-out evaluation of the exported checkpoint (the Evaluate view, `envace eval`). */
export interface CardEvaluation {
  split: string;
  rehearsals: number;
  tasks: number;
  success: number;
  meanScore: number;
  createdAt: number;
}

/** What the card says about held-out success: stored evaluations of this step, else training's last eval/success. */
export interface HeldOut {
  step: number;
  evaluations: CardEvaluation[];
  /** The last `eval/success` training logged at or before `step` (runs with evalEvery > 0). */
  trainingEval: { step: number; success: number } | null;
  /** How to evaluate it, for a card that has nothing yet. */
  command?: string;
}

export interface ModelCard {
  /** Run id or name the weights come from. */
  run: string;
  /** Training method, e.g. "SFT then GRPO with world rehearsal". */
  method: string;
  metrics: Record<string, number | string>;
  baseModel?: string;
  /** Present for run exports: the held-out figures a reader of the card looks for first. */
  heldOut?: HeldOut;
}

/**
 * The held-out section's facts from the store: evaluations of exactly this checkpoint (another step's
 * weights are not these weights), newest first, and training's last eval/success up to the step.
 */
export function heldOutFacts(
  step: number,
  stored: ReadonlyArray<CardEvaluation & { step: number }>,
  evalSuccess: { steps: number[]; values: number[] } | undefined,
  command?: string,
): HeldOut {
  const evaluations = stored
    .filter((e) => e.step === step)
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, 10)
    .map(({ split, rehearsals, tasks, success, meanScore, createdAt }) => ({ split, rehearsals, tasks, success, meanScore, createdAt }));
  let trainingEval: HeldOut['trainingEval'] = null;
  if (evalSuccess) {
    for (let i = evalSuccess.steps.length - 1; i >= 0; i -= 1) {
      const at = evalSuccess.steps[i]!;
      const value = evalSuccess.values[i]!;
      if (at <= step && Number.isFinite(value)) {
        trainingEval = { step: at, success: value };
        break;
      }
    }
  }
  return { step, evaluations, trainingEval, ...(command ? { command } : {}) };
}

const percent = (v: number) => `${(v * 100).toFixed(1)} %`;

function heldOutLines(h: HeldOut): string[] {
  const lines = ['', '## Held-out evaluation', ''];
  if (h.evaluations.length > 0) {
    lines.push(`Measured in the real environment on checkpoint step ${h.step}:`, '');
    lines.push('| split | test-time rehearsals | tasks | success | mean score | evaluated |', '| --- | --- | --- | --- | --- | --- |');
    for (const e of h.evaluations) {
      lines.push(`| ${cell(e.split)} | ${e.rehearsals} | ${e.tasks} | ${percent(e.success)} | ${e.meanScore.toFixed(3)} | ${new Date(e.createdAt).toISOString().slice(0, 10)} |`);
    }
  }
  if (h.trainingEval) {
    lines.push(`${h.evaluations.length > 0 ? '\n' : ''}During training, held-out success (\`eval/success\`) was ${percent(h.trainingEval.success)} at step ${h.trainingEval.step}.`);
  }
  if (h.evaluations.length === 0 && !h.trainingEval) {
    lines.push(`Not evaluated on held-out tasks yet${h.command ? `: \`${h.command}\` measures it` : ''}.`);
  }
  return lines;
}

const LIBRARY: Record<string, string> = { onnx: 'transformers.js', lora: 'peft', gguf: 'gguf' };

const cell = (v: unknown) => String(v).replace(/[|\n\r]/g, ' ');

export function renderModelCard(card: ModelCard | undefined, info: { format: string; config: ModelConfig; mergedLora: boolean }): string {
  const c = info.config;
  // The library the hub files a folder under (and offers its loading snippet for): ONNX folders in the
  // transformers.js layout under transformers.js, an adapter under PEFT, a llama.cpp file under gguf.
  const library = LIBRARY[info.format] ?? 'transformers';
  const lines = ['---', `library_name: ${library}`, 'pipeline_tag: text-generation', 'tags:', '  - envace-workbench', ...(info.format === 'gguf' ? ['  - gguf'] : [])];
  if (card?.baseModel) lines.push(`base_model: ${JSON.stringify(card.baseModel)}`);
  lines.push('---', '', `# ${card ? cell(card.run) : 'EnvACE model'}`, '');
  lines.push(`Exported by EnvACE Workbench as **${info.format}**.`, '');
  if (card) lines.push(`- Run: ${cell(card.run)}`, `- Method: ${cell(card.method)}`);
  lines.push(
    `- Architecture: ${c.nLayers} layers, width ${c.dModel}, ${c.nHeads} heads (${c.nKvHeads} key/value), vocabulary ${c.vocabSize}, ${countParams(c)} parameters`,
  );
  if (info.mergedLora) lines.push('- LoRA adapters trained in the run are merged into these weights.');
  if (info.format === 'onnx')
    lines.push(
      "- Layout: transformers.js's (as onnx-community's repos): `onnx/model.onnx` (KV cache, logits for every position) beside the config and tokenizer; load with transformers.js `AutoModelForCausalLM.from_pretrained(dir)`, or with Optimum's `ORTModelForCausalLM.from_pretrained(dir, subfolder=\"onnx\")`.",
    );
  const metrics = Object.entries(card?.metrics ?? {});
  if (metrics.length > 0) {
    lines.push('', '## Metrics', '', '| metric | value |', '| --- | --- |');
    for (const [k, v] of metrics) lines.push(`| ${cell(k)} | ${cell(v)} |`);
  }
  if (card?.heldOut) lines.push(...heldOutLines(card.heldOut));
  return `${lines.join('\n')}\n`;
}

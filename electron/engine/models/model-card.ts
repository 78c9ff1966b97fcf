// README.md of an exported model: what it is, how it was trained, what it scored. Hugging Face reads the
// YAML front matter for the hub's metadata panel.

import { type ModelConfig, countParams } from '../../../native-models';

export interface ModelCard {
  /** Run id or name the weights come from. */
  run: string;
  /** Training method, e.g. "SFT then GRPO with world rehearsal". */
  method: string;
  metrics: Record<string, number | string>;
  baseModel?: string;
}

const cell = (v: unknown) => String(v).replace(/[|\n\r]/g, ' ');

export function renderModelCard(card: ModelCard | undefined, info: { format: string; config: ModelConfig; mergedLora: boolean }): string {
  const c = info.config;
  // The hub files ONNX folders (Optimum's layout) under transformers.js, whose loader runs them.
  const library = info.format === 'onnx' ? 'transformers.js' : 'transformers';
  const lines = ['---', `library_name: ${library}`, 'pipeline_tag: text-generation', 'tags:', '  - envace-workbench'];
  if (card?.baseModel) lines.push(`base_model: ${JSON.stringify(card.baseModel)}`);
  lines.push('---', '', `# ${card ? cell(card.run) : 'EnvACE model'}`, '');
  lines.push(`Exported by EnvACE Workbench as **${info.format}**.`, '');
  if (card) lines.push(`- Run: ${cell(card.run)}`, `- Method: ${cell(card.method)}`);
  lines.push(
    `- Architecture: ${c.nLayers} layers, width ${c.dModel}, ${c.nHeads} heads (${c.nKvHeads} key/value), vocabulary ${c.vocabSize}, ${countParams(c)} parameters`,
  );
  if (info.mergedLora) lines.push('- LoRA adapters trained in the run are merged into these weights.');
  if (info.format === 'onnx')
    lines.push("- Layout: Optimum's `onnx/model.onnx` (KV cache, logits for every position); load with transformers.js `AutoModelForCausalLM.from_pretrained(dir)`.");
  const metrics = Object.entries(card?.metrics ?? {});
  if (metrics.length > 0) {
    lines.push('', '## Metrics', '', '| metric | value |', '| --- | --- |');
    for (const [k, v] of metrics) lines.push(`| ${cell(k)} | ${cell(v)} |`);
  }
  return `${lines.join('\n')}\n`;
}

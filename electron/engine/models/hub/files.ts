/**
 * Which files of a model repo a pull takes: what the HF import reads (config, safetensors weights and
 * their index, tokenizer, chat template). Never pickled weights (pytorch_model.bin, *.pt), which the
 * import cannot read and which can run code, nor ONNX/GGUF variants that double the download.
 */
const WANTED = new Set([
  'config.json',
  'generation_config.json',
  'model.safetensors.index.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'chat_template.jinja',
  'chat_template.json',
]);

export function isWantedFile(path: string): boolean {
  // Top-level files only: sub-folders hold other variants (onnx/, original/, gguf quantisations).
  if (path.includes('/')) return false;
  return WANTED.has(path) || path.endsWith('.safetensors');
}

/** Small files first so config.json can be checked before gigabytes of weights move. */
export function pullOrder(a: { path: string; size: number }, b: { path: string; size: number }): number {
  if (a.path === 'config.json') return -1;
  if (b.path === 'config.json') return 1;
  return a.size - b.size || a.path.localeCompare(b.path);
}

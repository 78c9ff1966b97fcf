// LoRA adapters of a trained model: merged into the base weights (W + (alpha/rank)·B·A, the scaling our
// transformer and PEFT both apply) for full-weight exports, or taken apart for a PEFT adapter export.

import { type ModelConfig, type Params, type TensorMap, paramSpecs } from '../../../native-models';
import { ModelConvertError } from './convert';

const isAdapter = (name: string) => name.includes('.lora_A.') || name.includes('.lora_B.');

/** The config without its LoRA section, and base weights with every adapter folded in. Inputs are not modified. */
export function mergeLora(config: ModelConfig, params: Params): { config: ModelConfig; params: Params } {
  const { lora, ...base } = config;
  if (!lora) return { config, params };
  const merged: Params = new Map();
  for (const s of paramSpecs(config)) {
    if (isAdapter(s.name)) continue;
    const w = params.get(s.name);
    if (!w) throw new ModelConvertError(`missing parameter ${s.name}`);
    const prefix = s.name.slice(0, -'.weight'.length);
    const a = params.get(`${prefix}.lora_A.weight`);
    const b = params.get(`${prefix}.lora_B.weight`);
    if (!s.name.endsWith('.weight') || !a || !b) {
      merged.set(s.name, w);
      continue;
    }
    const [out, inp] = s.shape;
    const r = lora.rank;
    const scale = lora.alpha / r;
    const sum = w.slice(); // [out, in]
    for (let o = 0; o < out; o++) {
      for (let k = 0; k < r; k++) {
        const coef = scale * b[o * r + k]; // B[o, k]
        if (coef === 0) continue;
        const row = k * inp; // A[k, :]
        for (let i = 0; i < inp; i++) sum[o * inp + i] += coef * a[row + i];
      }
    }
    merged.set(s.name, sum);
  }
  return { config: base, params: merged };
}

/** The adapter tensors (`model.layers.{i}.<module>.lora_A/B.weight`, HF shapes). Error when the model has none. */
export function loraAdapters(config: ModelConfig, params: Params): TensorMap {
  if (!config.lora)
    throw new ModelConvertError('this model has no LoRA adapters (its config has no "lora" section); export it as hf, onnx or gguf instead');
  const out: TensorMap = new Map();
  for (const s of paramSpecs(config).filter((x) => isAdapter(x.name))) {
    const data = params.get(s.name);
    if (!data) throw new ModelConvertError(`missing LoRA parameter ${s.name}`);
    out.set(s.name, { dtype: 'F32', shape: [...s.shape], data });
  }
  return out;
}

/** The frozen base the adapters apply to: the config without its LoRA section and every weight but the adapters. */
export function loraBase(config: ModelConfig, params: Params): { config: ModelConfig; params: Params } {
  const { lora: _lora, ...base } = config;
  return { config: base, params: new Map([...params].filter(([name]) => !isAdapter(name))) };
}

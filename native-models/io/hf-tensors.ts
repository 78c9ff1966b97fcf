// Tensor names and shapes of a Hugging Face Llama-family checkpoint (and of PEFT LoRA adapters on it),
// derived from the model shape alone. Linear weights are [out, in], as torch.nn.Linear stores them.

import type { HostTensor } from './dtype';
import type { HfModelShape } from './hf-config';
import { type SpecProblem, type TensorSpec, checkTensorsAgainstSpec } from './tensor-spec';

// One list of adapter targets: the transformer's config owns it.
import { LORA_TARGETS, type LoraTarget } from '../transformer/config';
export { LORA_TARGETS, type LoraTarget };

/** Module path of each projection inside a layer, and its [out, in] sizes. */
export function projectionShapes(s: HfModelShape): Record<LoraTarget, { module: string; out: number; in: number }> {
  const q = s.nHeads * s.headDim;
  const kv = s.nKvHeads * s.headDim;
  return {
    q_proj: { module: 'self_attn.q_proj', out: q, in: s.dModel },
    k_proj: { module: 'self_attn.k_proj', out: kv, in: s.dModel },
    v_proj: { module: 'self_attn.v_proj', out: kv, in: s.dModel },
    o_proj: { module: 'self_attn.o_proj', out: s.dModel, in: q },
    gate_proj: { module: 'mlp.gate_proj', out: s.dFf, in: s.dModel },
    up_proj: { module: 'mlp.up_proj', out: s.dFf, in: s.dModel },
    down_proj: { module: 'mlp.down_proj', out: s.dModel, in: s.dFf },
  };
}

/** Every tensor a checkpoint of this shape holds, in model order. */
export function expectedHfTensors(s: HfModelShape): TensorSpec[] {
  const out: TensorSpec[] = [{ name: 'model.embed_tokens.weight', shape: [s.vocabSize, s.dModel] }];
  const proj = projectionShapes(s);
  for (let i = 0; i < s.nLayers; i++) {
    const p = `model.layers.${i}`;
    out.push({ name: `${p}.input_layernorm.weight`, shape: [s.dModel] });
    for (const t of ['q_proj', 'k_proj', 'v_proj'] as const) {
      out.push({ name: `${p}.${proj[t].module}.weight`, shape: [proj[t].out, proj[t].in] });
      if (s.qkvBias) out.push({ name: `${p}.${proj[t].module}.bias`, shape: [proj[t].out] });
    }
    if (s.qkNorm) {
      out.push({ name: `${p}.self_attn.q_norm.weight`, shape: [s.headDim] });
      out.push({ name: `${p}.self_attn.k_norm.weight`, shape: [s.headDim] });
    }
    out.push({ name: `${p}.self_attn.o_proj.weight`, shape: [proj.o_proj.out, proj.o_proj.in] });
    out.push({ name: `${p}.post_attention_layernorm.weight`, shape: [s.dModel] });
    for (const t of ['gate_proj', 'up_proj', 'down_proj'] as const) {
      out.push({ name: `${p}.${proj[t].module}.weight`, shape: [proj[t].out, proj[t].in] });
    }
  }
  out.push({ name: 'model.norm.weight', shape: [s.dModel] });
  if (!s.tiedEmbeddings) out.push({ name: 'lm_head.weight', shape: [s.vocabSize, s.dModel] });
  return out;
}

/**
 * Parameter count of a model of this shape (tied embeddings counted once), by arithmetic rather than
 * from the tensor list: it is the check that runs before a config's tensor list may be built.
 */
export function hfParameterCount(s: HfModelShape): number {
  const proj = projectionShapes(s);
  let perLayer = 2 * s.dModel; // the two RMSNorms
  for (const t of LORA_TARGETS) perLayer += proj[t].out * proj[t].in;
  if (s.qkvBias) perLayer += proj.q_proj.out + proj.k_proj.out + proj.v_proj.out;
  if (s.qkNorm) perLayer += 2 * s.headDim;
  const embeddings = s.vocabSize * s.dModel * (s.tiedEmbeddings ? 1 : 2);
  return embeddings + s.nLayers * perLayer + s.dModel;
}

/**
 * Compare a weight map with the shape. Tolerated extras, which transformers itself ignores on load:
 * a duplicate `lm_head.weight` of a tied model and old checkpoints' `rotary_emb.inv_freq` buffers.
 */
export function checkHfWeights(tensors: ReadonlyMap<string, Pick<HostTensor, 'dtype' | 'shape'>>, s: HfModelShape): SpecProblem[] {
  const spec = expectedHfTensors(s);
  // A tied model's stray lm_head must still have the embedding's shape, or it is not a duplicate.
  if (s.tiedEmbeddings && tensors.has('lm_head.weight')) spec.push({ name: 'lm_head.weight', shape: [s.vocabSize, s.dModel] });
  const relevant = new Map([...tensors].filter(([name]) => !name.endsWith('.rotary_emb.inv_freq')));
  return checkTensorsAgainstSpec(relevant, spec);
}

export interface LoraShape {
  rank: number;
  targets: readonly LoraTarget[];
  /** PEFT saves adapters under `base_model.model.`; pass '' for bare names. */
  prefix?: string;
}

/** PEFT adapter tensors: `…<module>.lora_A.weight` [r, in] and `…lora_B.weight` [out, r] per layer and target. */
export function expectedLoraTensors(s: HfModelShape, lora: LoraShape): TensorSpec[] {
  if (!Number.isSafeInteger(lora.rank) || lora.rank <= 0) throw new RangeError(`LoRA rank must be a positive integer, got ${lora.rank}`);
  const proj = projectionShapes(s);
  const prefix = lora.prefix ?? 'base_model.model.';
  const out: TensorSpec[] = [];
  for (let i = 0; i < s.nLayers; i++) {
    for (const t of LORA_TARGETS.filter((x) => lora.targets.includes(x))) {
      const base = `${prefix}model.layers.${i}.${proj[t].module}`;
      out.push({ name: `${base}.lora_A.weight`, shape: [lora.rank, proj[t].in] });
      out.push({ name: `${base}.lora_B.weight`, shape: [proj[t].out, lora.rank] });
    }
  }
  return out;
}

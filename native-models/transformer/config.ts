// Model configuration: a typed default, strict validation (unknown keys rejected), and the
// parameter list with Hugging Face Llama names and [out, in] layouts.
import { z } from 'zod';
import type { DType } from '../graph/types';

export const LORA_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

const positiveInt = z.number().int().positive();

export const LoraConfigSchema = z
  .object({
    rank: positiveInt,
    alpha: z.number().positive(),
    targets: z.array(z.enum(LORA_TARGETS)).min(1),
  })
  .strict();

export const ModelConfigSchema = z
  .object({
    vocabSize: positiveInt,
    dModel: positiveInt,
    nLayers: positiveInt,
    nHeads: positiveInt,
    nKvHeads: positiveInt,
    /** Per-head width; defaults to dModel / nHeads (Qwen3 sets it explicitly). */
    headDim: positiveInt.optional(),
    dFf: positiveInt,
    ropeTheta: z.number().positive(),
    normEps: z.number().positive(),
    tiedEmbeddings: z.boolean(),
    qkvBias: z.boolean(),
    qkNorm: z.boolean(),
    maxSeqLen: positiveInt,
    lora: LoraConfigSchema.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.nHeads % c.nKvHeads !== 0) ctx.addIssue({ code: 'custom', message: `nHeads (${c.nHeads}) must be a multiple of nKvHeads (${c.nKvHeads})` });
    if (c.headDim === undefined && c.dModel % c.nHeads !== 0) ctx.addIssue({ code: 'custom', message: `dModel (${c.dModel}) must be divisible by nHeads (${c.nHeads}) unless headDim is set` });
    if ((c.headDim ?? c.dModel / c.nHeads) % 2 !== 0) ctx.addIssue({ code: 'custom', message: 'head dim must be even for RoPE' });
  });

export type ModelConfig = z.infer<typeof ModelConfigSchema>;
export type LoraConfig = z.infer<typeof LoraConfigSchema>;

export const defaultConfig: ModelConfig = {
  vocabSize: 512,
  dModel: 128,
  nLayers: 4,
  nHeads: 4,
  nKvHeads: 2,
  dFf: 352,
  ropeTheta: 10000,
  normEps: 1e-5,
  tiedEmbeddings: true,
  qkvBias: false,
  qkNorm: false,
  maxSeqLen: 1024,
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Validates a full config; the message lists every problem with its key. */
export function resolveConfig(overrides: Partial<ModelConfig> = {}, base: ModelConfig = defaultConfig): ModelConfig {
  const r = ModelConfigSchema.safeParse({ ...base, ...overrides });
  if (!r.success) throw new ConfigError(`invalid model config: ${r.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ')}`);
  return r.data;
}

/**
 * Parses `key=value` overrides (a CLI's `--set`) over `base`: numbers, booleans, `lora.rank`,
 * `lora.alpha`, `lora.targets=q_proj,v_proj`. Unknown keys and ill-typed values are errors.
 */
export function parseOverrides(pairs: readonly string[], base: ModelConfig = defaultConfig): ModelConfig {
  const known = Object.keys(ModelConfigSchema.shape);
  const loraKnown = Object.keys(LoraConfigSchema.shape);
  const top: Record<string, unknown> = {};
  let lora: Record<string, unknown> | undefined;
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ConfigError(`override '${pair}' is not key=value`);
    const [key, raw] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
    const value = raw === 'true' ? true : raw === 'false' ? false : raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    if (key.startsWith('lora.')) {
      const sub = key.slice(5);
      if (!loraKnown.includes(sub)) throw new ConfigError(`unknown override key '${key}' (lora keys: ${loraKnown.join(', ')})`);
      lora ??= { ...(base.lora ?? {}) };
      lora[sub] = sub === 'targets' ? raw.split(',').map((t) => t.trim()).filter(Boolean) : value;
    } else if (known.includes(key) && key !== 'lora') top[key] = value;
    else throw new ConfigError(`unknown override key '${key}' (known: ${known.filter((k) => k !== 'lora').join(', ')}, lora.*)`);
  }
  return resolveConfig({ ...top, ...(lora ? { lora: lora as LoraConfig } : {}) } as Partial<ModelConfig>, base);
}

export const headDim = (c: ModelConfig): number => c.headDim ?? c.dModel / c.nHeads;

export interface ParamSpec {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** Whether the train step returns a gradient for it (LoRA: only the adapters). */
  readonly trainable: boolean;
  /** Whether AdamW applies weight decay (matrices yes; norms and biases no). */
  readonly decay: boolean;
}

/** Ordered parameter list, names and shapes exactly as Hugging Face Llama/Qwen2/Qwen3 (+ PEFT LoRA). */
export function paramSpecs(c: ModelConfig, dtype: DType = 'float32'): ParamSpec[] {
  const D = headDim(c);
  const lora = c.lora;
  const base = !lora;
  const specs: ParamSpec[] = [];
  const add = (name: string, shape: number[], trainable = base) => specs.push({ name, shape, dtype, trainable, decay: shape.length >= 2 });
  const linear = (prefix: string, target: LoraTarget, out: number, inp: number, bias: boolean) => {
    add(`${prefix}.${target}.weight`, [out, inp]);
    if (bias) add(`${prefix}.${target}.bias`, [out]);
    if (lora?.targets.includes(target)) {
      add(`${prefix}.${target}.lora_A.weight`, [lora.rank, inp], true);
      add(`${prefix}.${target}.lora_B.weight`, [out, lora.rank], true);
    }
  };
  add('model.embed_tokens.weight', [c.vocabSize, c.dModel]);
  for (let i = 0; i < c.nLayers; i++) {
    const p = `model.layers.${i}`;
    add(`${p}.input_layernorm.weight`, [c.dModel]);
    linear(`${p}.self_attn`, 'q_proj', c.nHeads * D, c.dModel, c.qkvBias);
    linear(`${p}.self_attn`, 'k_proj', c.nKvHeads * D, c.dModel, c.qkvBias);
    linear(`${p}.self_attn`, 'v_proj', c.nKvHeads * D, c.dModel, c.qkvBias);
    linear(`${p}.self_attn`, 'o_proj', c.dModel, c.nHeads * D, false);
    if (c.qkNorm) {
      add(`${p}.self_attn.q_norm.weight`, [D]);
      add(`${p}.self_attn.k_norm.weight`, [D]);
    }
    add(`${p}.post_attention_layernorm.weight`, [c.dModel]);
    linear(`${p}.mlp`, 'gate_proj', c.dFf, c.dModel, false);
    linear(`${p}.mlp`, 'up_proj', c.dFf, c.dModel, false);
    linear(`${p}.mlp`, 'down_proj', c.dModel, c.dFf, false);
  }
  add('model.norm.weight', [c.dModel]);
  if (!c.tiedEmbeddings) add('lm_head.weight', [c.vocabSize, c.dModel]);
  return specs;
}

export function countParams(c: ModelConfig): number {
  return paramSpecs(c).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);
}

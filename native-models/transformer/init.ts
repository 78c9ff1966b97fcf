// Deterministic parameter initialisation: N(0, 0.02) matrices, ones for norms, zeros for biases,
// LoRA A uniform(±1/sqrt(in)) and B zeros so an adapted model starts equal to its base.
import type { ModelConfig, ParamSpec } from './config';
import { paramSpecs } from './config';

export type Params = Map<string, Float32Array>;

function gaussian(seed: number): () => number {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

function initOne(spec: ParamSpec, normal: () => number, std: number): Float32Array {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  const name = spec.name;
  if (name.endsWith('norm.weight')) out.fill(1);
  else if (name.endsWith('.bias') || name.endsWith('lora_B.weight')) out.fill(0);
  else if (name.endsWith('lora_A.weight')) {
    const bound = 1 / Math.sqrt(spec.shape[1]);
    for (let i = 0; i < n; i++) out[i] = bound * Math.tanh(normal());
  } else for (let i = 0; i < n; i++) out[i] = std * normal();
  return out;
}

export function initParams(c: ModelConfig, seed = 0, std = 0.02): Params {
  const normal = gaussian(seed * 2654435761 + 1);
  return new Map(paramSpecs(c).map((s) => [s.name, initOne(s, normal, std)]));
}

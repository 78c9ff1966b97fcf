// A run's LoRA knobs as the model's adapter config. Kept apart from train.ts so pre-flight (on the
// engine's main thread) can use it without loading the model stack and ONNX Runtime.
import type { RunConfig } from '../../contract';
import type { LoraConfig } from '../../../native-models/transformer/config';

const LORA_TARGETS: Record<RunConfig['lora']['targets'], LoraConfig['targets']> = {
  attention: ['q_proj', 'k_proj', 'v_proj', 'o_proj'],
  'attention+mlp': ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
};

/** The run's adapters, or undefined when every weight trains (rank 0). */
export function loraOf(c: RunConfig): LoraConfig | undefined {
  return c.lora.rank > 0 ? { rank: c.lora.rank, alpha: c.lora.alpha, targets: LORA_TARGETS[c.lora.targets] } : undefined;
}

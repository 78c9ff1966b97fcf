/** Messages between the engine's main thread and the compute worker (where ORT lives). */
export interface ComputeOps {
  /** Which execution providers create a session on this machine. */
  providers: { input: Record<string, never>; output: Array<{ provider: 'cpu' | 'cuda' | 'webgpu'; available: boolean; detail?: string }> };
  /** onnxruntime-node's version as loaded in the worker. */
  ortVersion: { input: Record<string, never>; output: string };
}

export type ComputeOp = keyof ComputeOps;

export type ComputeRequest = { id: number; op: ComputeOp; input: unknown };
export type ComputeResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

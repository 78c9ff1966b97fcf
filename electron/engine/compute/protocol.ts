import type { RunConfig } from '../../contract';
import type { NewRollout } from '../store';
import type { CommitInput, EvaluateInput, EvaluateOutput, FitInput, RehearseInput } from './policy-ops';

/** What a training job streams back while it runs (written to the store by the main thread). */
export type TrainEvent =
  | { type: 'step'; step: number; metrics: Record<string, number>; rollouts: NewRollout[]; checkpoint?: { step: number; path: string } }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'progress'; fraction: number; phase: string };

/** Messages between the engine's main thread and the compute worker (where ORT lives). */
export interface ComputeOps {
  /** Which execution providers create a session on this machine. */
  providers: { input: Record<string, never>; output: Array<{ provider: 'cpu' | 'cuda' | 'webgpu'; available: boolean; detail?: string }>; event: never };
  /** Stop every environment the worker built (their server processes), before the worker is terminated. */
  closeEnvs: { input: Record<string, never>; output: null; event: never };
  /** onnxruntime-node's version as loaded in the worker. */
  ortVersion: { input: Record<string, never>; output: string; event: never };
  /** Train a run (or resume it from a checkpoint step), streaming steps as they finish. */
  evaluate: { input: EvaluateInput; output: EvaluateOutput; event: never };
  rehearse: { input: RehearseInput; output: Awaited<ReturnType<typeof import('./policy-ops').rehearseOp>>; event: never };
  fit: { input: FitInput; output: Awaited<ReturnType<typeof import('./policy-ops').fitOp>>; event: never };
  commit: { input: CommitInput; output: Awaited<ReturnType<typeof import('./policy-ops').commitOp>>; event: never };
  train: { input: { config: RunConfig; runDir: string; modelsDir?: string; resumeFromStep?: number; resumeFromDir?: string; initFromDir?: string }; output: { finalStep: number }; event: TrainEvent };
}

export type ComputeOp = keyof ComputeOps;

export type ComputeRequest = { type: 'request'; id: number; op: ComputeOp; input: unknown } | { type: 'cancel'; id: number };
export type ComputeResponse =
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: string; errorName?: string; cancelled?: boolean }
  | { type: 'event'; id: number; event: unknown };

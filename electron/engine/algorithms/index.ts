// Public API of the algorithms: what the compute worker, the CLI and the handlers use.
export { runTraining, planStages, rolloutSettings, envOptions } from './train';
export type { StepResult, TrainingIO } from './train';
export { NativePolicy, runSessionOptions, withContext } from './policy';
export type { Policy, ReferencePolicy, GenerateRequest, SamplingOptions } from './policy';
export { evaluatePolicy } from './evaluate';
export type { EvaluationResult } from './evaluate';
export { privateRehearsals, commitWithMemory, rehearseAndCommit, chooseCommit } from './test-time';
export type { CommitChoice, TestTimeOptions, TestTimeResult } from './test-time';
export { buildMemory, summariseRehearsal } from './memory';
export type { RehearsalTrace } from './memory';
export { realityCheck, observationFidelity } from './fidelity';
export type { RealityCheck } from './fidelity';
export { memoryFitFor, runRollouts, toNewRollout } from './rollout';
export type { RolloutMode, RolloutRequest, RolloutResult, RolloutSettings } from './rollout';
export { AlgorithmError } from './errors';

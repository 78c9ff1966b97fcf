/** Hand-made cells for the aggregation, format and report tests: zeros unless a test says otherwise. */
import type { EvalCell, RunCell } from '../../../../electron/engine/experiment/cells';
import { NO_TRAINING_FIGURES } from '../../../../electron/engine/experiment/figures';
import type { Split, Variant } from '../../../../electron/engine/experiment/plan';
import type { Method } from '../../../../electron/engine/experiment/suite';

export const evalCell = (method: Method, seed: number, split: Split, over: Partial<EvalCell> = {}, testTime: Variant['testTime'] = null): EvalCell => ({
  kind: 'eval',
  key: `retail/${seed}/${method}${testTime ? '+tt' : ''}/${split}`,
  env: 'retail',
  seed,
  variant: { method, testTime },
  split,
  runId: `run-${method}-${seed}`,
  step: 8,
  tasks: 16,
  success: 0,
  meanScore: 0,
  invalidActionRate: 0,
  envCallsPerTask: 0,
  tokensPerTask: 0,
  wallMs: 0,
  fidelity: null,
  ...over,
});

export const runCell = (method: Method, seed: number, over: Partial<RunCell> = {}): RunCell => ({
  kind: 'run',
  key: `retail/${seed}/${method}`,
  env: 'retail',
  seed,
  method,
  runId: `run-${method}-${seed}`,
  step: 8,
  ...NO_TRAINING_FIGURES,
  curves: [],
  ...over,
});

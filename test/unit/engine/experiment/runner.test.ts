import { describe, expect, it } from 'vitest';
import { ContractError, type RunConfigInput, type WorkbenchApi } from '../../../../electron/contract';
import { ExperimentCancelled, type ExperimentProgress, runExperiment } from '../../../../electron/engine/experiment/runner';
import { SUITES, type Suite } from '../../../../electron/engine/experiment/suite';

/**
 * A scripted stand-in for the engine's contract: runs "train" by emitting progress and a final
 * status; metrics, evaluations and trajectories answer from what the script says.
 */
function fakeApi(script: {
  /** Steps the engine trains for a config (default: every stage, SFT included). */
  totalSteps?: (c: RunConfigInput) => number;
  outcome?: (c: RunConfigInput) => 'completed' | 'failed' | 'hold';
  evalError?: (c: RunConfigInput, rehearsals: number) => string | null;
}) {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const emit = (event: string, payload: unknown) => listeners.get(event)?.forEach((l) => l(payload));
  const runs = new Map<string, { config: RunConfigInput; totalSteps: number; error: string | null }>();
  const calls: Array<[string, unknown]> = [];
  const planned = (c: RunConfigInput) =>
    c.algo === 'sft' ? c.steps! : c.sft!.steps! + c.steps! + (c.algo === 'rwml+grpo-real' ? c.rwml!.stageSteps! : 0);
  // env_calls per step: real-env methods make 5 a step after SFT; SFT and rehearsal make none.
  const envCalls = (c: RunConfigInput, step: number, total: number) => (c.algo === 'sft+envace' || step <= total - SUITE.rlSteps ? 0 : 5);
  const api = {
    calls,
    async call(method: string, input: Record<string, unknown>) {
      calls.push([method, input]);
      switch (method) {
        case 'runs.create': {
          const config = input.config as RunConfigInput;
          const id = `run-${runs.size + 1}`;
          const totalSteps = (script.totalSteps ?? planned)(config);
          const outcome = script.outcome?.(config) ?? 'completed';
          runs.set(id, { config, totalSteps, error: outcome === 'failed' ? 'out of memory' : null });
          setTimeout(() => {
            for (let step = 1; step <= totalSteps; step++)
              emit('run.progress', { runId: id, step, totalSteps, fraction: step / totalSteps, etaMs: null, phase: 'train' });
            if (outcome !== 'hold') emit('run.status', { runId: id, status: outcome, error: runs.get(id)!.error });
          }, 0);
          return { id, totalSteps };
        }
        case 'runs.cancel':
          setTimeout(() => emit('run.status', { runId: input.id, status: 'cancelled', error: null }), 0);
          return { ok: true };
        case 'runs.get': {
          const r = runs.get(input.id as string)!;
          return { id: input.id, totalSteps: r.totalSteps, error: r.error };
        }
        case 'metrics.query': {
          const r = runs.get(input.runId as string)!;
          const steps = Array.from({ length: r.totalSteps }, (_, i) => i + 1);
          const series = (key: string, f: (s: number) => number) => ({ key, steps, values: steps.map(f), min: [], max: [], total: steps.length });
          return {
            runId: input.runId,
            series: [series('env_calls', (s) => envCalls(r.config, s, r.totalSteps)), series('step_ms', () => 100), series('reward', (s) => s / 100)],
          };
        }
        case 'evals.run': {
          const r = runs.get(input.runId as string)!;
          const err = script.evalError?.(r.config, input.rehearsals as number);
          if (err) throw new ContractError('not_available', err);
          return {
            success: input.step === r.totalSteps ? 0.5 : 0.25,
            meanScore: 0.6,
            invalidActionRate: 0.1,
            envCallsPerTask: 2,
            tokensPerTask: 40,
            wallMs: 300,
            fidelity: (input.rehearsals as number) > 0 ? 0.7 : null,
          };
        }
        case 'trajectories.list':
          return { items: [], total: 0 };
        default:
          throw new Error(`unexpected call ${method}`);
      }
    },
    on(event: string, listener: (p: unknown) => void) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
      return () => listeners.get(event)!.delete(listener);
    },
  };
  return api as typeof api & WorkbenchApi;
}

const SUITE: Suite = {
  ...SUITES.quick,
  name: 'unit',
  envs: [{ ...SUITES.quick.envs[0], sftSteps: 10, evalLimit: 3 }],
  seeds: [1],
  methods: ['sft', 'envace', 'grpo-real', 'rwml'],
  rlSteps: 4,
  testTime: { modes: ['parallel'], rehearsals: [2] },
  fidelityEvery: 0,
};

describe('runExperiment over the contract', () => {
  it('evaluates the SFT checkpoint and the last step, sums env calls over the RL budget only', async () => {
    const api = fakeApi({});
    const result = await runExperiment(api, SUITE);
    const byKey = Object.fromEntries(result.measurements.map((m) => [`${m.variant.method}${m.variant.testTime ? '+tt' : ''}`, m]));
    expect(Object.keys(byKey)).toEqual(['sft', 'envace', 'envace+tt', 'grpo-real', 'rwml']);
    expect(byKey.sft).toMatchObject({ runId: 'run-1', step: 10, success: 0.25, trainEnvCalls: 0, trainWallMs: 1000 });
    expect(byKey.envace).toMatchObject({ runId: 'run-1', step: 14, success: 0.5, trainEnvCalls: 0, trainWallMs: 1400, fidelity: null });
    expect(byKey['envace+tt'].fidelity).toBe(0.7);
    // 4 RL steps × 5 calls; the 10 SFT steps before them made none.
    expect(byKey['grpo-real']).toMatchObject({ warmStart: true, trainEnvCalls: 20, trainEnvCallsTotal: 20 });
    const evals = api.calls.filter(([m]) => m === 'evals.run').map(([, i]) => i as Record<string, unknown>);
    expect(evals.every((e) => e.split === 'heldout' && e.limit === 3 && e.seed === 1)).toBe(true);
    expect(evals.map((e) => e.rehearsals)).toEqual([0, 0, 2, 0, 0]);
    // Reward curves start at the first RL step.
    expect(result.curves.find((c) => c.method === 'grpo-real')).toMatchObject({ steps: [1, 2, 3, 4], values: [0.11, 0.12, 0.13, 0.14] });
  });

  it('marks runs the engine trained without the SFT stage and reports progress over the whole experiment', async () => {
    const api = fakeApi({
      totalSteps: (c) =>
        c.algo === 'grpo-real' ? c.steps! : c.algo === 'rwml+grpo-real' ? c.steps! + c.rwml!.stageSteps! : c.sft!.steps! + c.steps!,
    });
    const progress: ExperimentProgress[] = [];
    const result = await runExperiment(api, SUITE, { onProgress: (p) => progress.push(p) });
    const grpo = result.measurements.find((m) => m.variant.method === 'grpo-real')!;
    expect(grpo).toMatchObject({ warmStart: false, step: 4, trainEnvCalls: 20 });
    expect(result.measurements.find((m) => m.variant.method === 'envace')!.warmStart).toBe(true);
    expect(progress.at(-1)).toMatchObject({ run: 3, runs: 3, label: 'rwml+grpo-real', step: 4, totalSteps: 4 });
    expect(progress.at(-1)!.fraction).toBe(1);
    expect(progress.map((p) => p.run)).toEqual([...progress.map((p) => p.run)].sort());
  });

  it('a failed run or a refused evaluation is recorded and the experiment goes on', async () => {
    const api = fakeApi({
      outcome: (c) => (c.algo === 'grpo-real' ? 'failed' : 'completed'),
      evalError: (c, n) => (c.algo === 'sft+envace' && n > 0 ? 'no rehearsal here' : null),
    });
    const result = await runExperiment(api, SUITE);
    expect(result.failures).toEqual([
      { env: 'retail', seed: 1, methods: ['envace'], runId: 'run-1', error: 'evaluating: no rehearsal here' },
      { env: 'retail', seed: 1, methods: ['grpo-real'], runId: 'run-2', error: 'out of memory' },
    ]);
    expect(result.measurements.map((m) => m.variant.method)).toEqual(['sft', 'envace', 'rwml']);
  });

  it('aborting cancels the run in progress and stops with what finished', async () => {
    const api = fakeApi({ outcome: (c) => (c.algo === 'grpo-real' ? 'hold' : 'completed') });
    const controller = new AbortController();
    const run = runExperiment(api, SUITE, {
      signal: controller.signal,
      onProgress: (p) => p.label === 'grpo-real' && p.step === p.totalSteps && controller.abort(),
    });
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExperimentCancelled);
    expect(api.calls.filter(([m]) => m === 'runs.cancel')).toEqual([['runs.cancel', { id: 'run-2' }]]);
    // The envace run finished and was measured; nothing after the cancelled run was started.
    expect((error as ExperimentCancelled).partial.measurements.map((m) => m.variant.method)).toEqual(['sft', 'envace', 'envace']);
    expect(api.calls.filter(([m]) => m === 'runs.create')).toHaveLength(2);
  });

  it('refuses an invalid suite before creating any run', async () => {
    const api = fakeApi({});
    await expect(runExperiment(api, { ...SUITE, seeds: [] })).rejects.toThrow(/at least one seed/);
    expect(api.calls).toEqual([]);
  });
});

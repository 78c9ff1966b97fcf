import { describe, expect, it } from 'vitest';
import { ContractError, type RunConfigInput, type WorkbenchApi } from '../../../../electron/contract';
import type { Cell, EvalCell, RunCell } from '../../../../electron/engine/experiment/cells';
import { ExperimentCancelled, type ExperimentProgress, runExperiment } from '../../../../electron/engine/experiment/runner';
import { SUITES, type Suite } from '../../../../electron/engine/experiment/suite';
import { patience } from '../../../helpers/patience';

/**
 * A scripted stand-in for the engine's contract: runs "train" by emitting progress and a final
 * status; metrics, rollouts, evaluations and reality checks answer from what the script says.
 */
function fakeApi(
  script: {
    outcome?: (c: RunConfigInput) => 'completed' | 'failed' | 'hold';
    evalError?: (c: RunConfigInput, rehearsals: number) => string | null;
  } = {},
  /** The engine's runs: another fake's, to stand for the same data home after a restart. */
  runs = new Map<string, { config: RunConfigInput; totalSteps: number; error: string | null }>(),
) {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const emit = (event: string, payload: unknown) => listeners.get(event)?.forEach((l) => l(payload));
  const calls: Array<[string, Record<string, unknown>]> = [];
  const planned = (c: RunConfigInput) => c.steps! + (c.algo === 'rwml+grpo-real' ? c.rwml!.stageSteps! : 0);
  const real = (c: RunConfigInput) => c.algo !== 'sft' && !String(c.algo).startsWith('envace');
  // Two training rollouts a step: real ones see "Error" once a step, rehearsed ones never.
  const rolloutsOf = (runId: string) => {
    const r = runs.get(runId)!;
    if (r.config.algo === 'sft') return [];
    return Array.from({ length: r.totalSteps * 2 }, (_, i) => ({
      id: Number(runId.slice(4)) * 1000 + i + 1,
      runId,
      step: Math.floor(i / 2) + 1,
      mode: real(r.config) ? 'real' : 'rehearse',
      envCalls: real(r.config) ? 2 : 0,
      envWallMs: real(r.config) ? 10 : 0,
    }));
  };
  const api = {
    calls,
    runs,
    async call(method: string, input: Record<string, unknown>) {
      calls.push([method, input]);
      switch (method) {
        case 'runs.create': {
          const config = input.config as RunConfigInput;
          const id = `run-${runs.size + 1}`;
          const totalSteps = planned(config);
          const outcome = script.outcome?.(config) ?? 'completed';
          runs.set(id, { config, totalSteps, error: outcome === 'failed' ? 'out of memory' : null });
          setTimeout(() => {
            for (let step = 1; step <= totalSteps; step++)
              emit('run.progress', { runId: id, step, totalSteps, fraction: step / totalSteps, etaMs: null, phase: 'train' });
            if (outcome !== 'hold') emit('run.status', { runId: id, status: outcome, error: runs.get(id)!.error });
          }, patience(0));
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
          const sft = r.config.algo === 'sft';
          return {
            runId: input.runId,
            series: [
              series('env_calls', () => (real(r.config) ? 4 : 0)),
              series('gather_env_calls', (s) => (sft && s === 1 ? 300 : 0)),
              series('step_ms', () => 100),
              ...(sft
                ? []
                : [
                    // 60 tokens at 1,000 tokens/s: a 60 ms rollout phase of each 100 ms step.
                    series('tokens_generated', () => 60),
                    series('tokens_per_s', () => 1000),
                    series('reward', (s) => s / 100),
                    series('reward/act', (s) => s / 10),
                    series('groups_with_signal', (s) => (s % 2 ? 0.5 : 1)),
                  ]),
            ],
          };
        }
        case 'trajectories.list': {
          const all = rolloutsOf(input.runId as string).filter(
            (r) => (input.step === undefined || r.step === input.step) && (input.mode === undefined || r.mode === input.mode),
          );
          const offset = (input.offset as number | undefined) ?? 0;
          return { items: all.slice(offset, offset + (input.limit as number)), total: all.length };
        }
        case 'trajectories.get': {
          const id = input.id as number;
          const rehearsed = id % 1000 > 0 && rolloutsOf(`run-${Math.floor(id / 1000)}`)[0]?.mode === 'rehearse';
          return { turns: [{ role: rehearsed ? 'rehearse' : 'env', text: id % 2 ? 'Error: not found' : '{"ok":1}' }, { role: rehearsed ? 'rehearse' : 'env', text: '{}' }] };
        }
        case 'trajectories.realityCheck':
          return {
            rollout: { turns: [{ role: 'rehearse', text: '{"ok":1}', realText: 'Error: no such user' }] },
            summary: { compared: 1, meanSimilarity: 0.5 },
          };
        case 'evals.run': {
          const r = runs.get(input.runId as string)!;
          const err = script.evalError?.(r.config, input.rehearsals as number);
          if (err) throw new ContractError('not_available', err);
          return {
            tasks: input.limit,
            success: r.config.algo === 'sft' ? 0.25 : 0.5,
            meanScore: 0.6,
            invalidActionRate: 0.1,
            envCallsPerTask: 2,
            tokensPerTask: 40,
            wallMs: 300,
            fidelity: (input.rehearsals as number) > 0 ? 0.7 : null,
          };
        }
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
  methods: ['sft', 'grpo-real', 'envace', 'rwml'],
  rlSteps: 4,
  testTime: { modes: ['parallel'], rehearsals: [2] },
  fidelityEvery: 0,
  fidelitySamples: 1,
  errorRollouts: 100,
};

const creates = (api: ReturnType<typeof fakeApi>) => api.calls.filter(([m]) => m === 'runs.create').map(([, i]) => i.config as RunConfigInput);
const evalKeys = (cells: readonly Cell[]) => cells.filter((c): c is EvalCell => c.kind === 'eval').map((c) => c.key);
const runCell = (cells: readonly Cell[], method: string) => cells.find((c): c is RunCell => c.kind === 'run' && c.method === method)!;

describe('runExperiment over the contract', () => {
  it('trains one SFT run, then every method from its checkpoint; each finished cell goes out as it finishes', async () => {
    const api = fakeApi();
    const out: Cell[] = [];
    const result = await runExperiment(api, SUITE, { onCell: (c) => out.push(c) });
    expect(result.failures).toEqual([]);
    const configs = creates(api);
    expect(configs.map((c) => c.algo)).toEqual(['sft', 'grpo-real', 'envace', 'rwml+grpo-real']);
    expect(configs.slice(1).every((c) => c.initFrom?.runId === 'run-1' && c.initFrom.step === 10)).toBe(true);
    expect(out).toEqual(result.cells);
    expect(out.map((c) => c.key)).toEqual([
      'retail/1/sft',
      'retail/1/sft/heldout',
      'retail/1/sft/train',
      'retail/1/sft+tt-parallel-2/heldout',
      'retail/1/grpo-real',
      'retail/1/grpo-real/heldout',
      'retail/1/grpo-real/train',
      'retail/1/envace',
      'retail/1/envace/heldout',
      'retail/1/envace/train',
      'retail/1/envace+tt-parallel-2/heldout',
      'retail/1/rwml',
      'retail/1/rwml/heldout',
      'retail/1/rwml/train',
    ]);
    const evals = api.calls.filter(([m]) => m === 'evals.run').map(([, i]) => i);
    expect(evals.every((e) => e.limit === 3 && e.seed === 1)).toBe(true);
    expect(evals.map((e) => [e.split, e.rehearsals])).toContainEqual(['train', 0]);
  });

  it('training figures: data and training env calls apart, step time split, signal, curves, fidelity and "Error" rates', async () => {
    const { cells } = await runExperiment(fakeApi(), SUITE);
    expect(runCell(cells, 'sft')).toMatchObject({ gatherEnvCalls: 300, trainEnvCalls: 0, trainWallMs: 1000, timing: null, groupsWithSignal: null });
    const grpo = runCell(cells, 'grpo-real');
    expect(grpo).toMatchObject({ step: 4, gatherEnvCalls: 0, trainEnvCalls: 16, groupsWithSignal: 0.75, fidelityStart: null, checkedErrors: null });
    // 100 ms steps; a 60 ms rollout phase of which the two stored rollouts timed 20 ms in the env.
    expect(grpo.timing).toEqual({ steps: 4, stepMs: 100, rolloutMs: 60, envMs: 20, generationMs: 40, trainMs: 40 });
    expect(grpo.realErrors).toEqual({ errors: 4, total: 16 });
    expect(grpo.imaginedErrors).toBeNull();
    expect(grpo.curves.map((c) => c.source)).toEqual(['reward', 'reward/act', 'groups_with_signal']);
    const envace = runCell(cells, 'envace');
    expect(envace.imaginedErrors).toEqual({ errors: 4, total: 16 });
    expect(envace).toMatchObject({ fidelityStart: 0.5, fidelityEnd: 0.5, checkedErrors: { imagined: { errors: 0, total: 2 }, real: { errors: 2, total: 2 } } });
    expect(envace.curves.find((c) => c.source === 'reality-check')).toEqual({ source: 'reality-check', steps: [1, 4], values: [0.5, 0.5] });
  });

  it('resume: cells already stored are not trained or evaluated again; the missing ones are', async () => {
    const home = fakeApi();
    const first = await runExperiment(home, SUITE);
    // As if interrupted while evaluating envace on training tasks: keep everything stored before it.
    const cut = first.cells.findIndex((c) => c.key === 'retail/1/envace/train');
    const stored = first.cells.slice(0, cut);
    const api = fakeApi({}, home.runs);
    const out: Cell[] = [];
    const result = await runExperiment(api, SUITE, { done: stored, onCell: (c) => out.push(c) });
    // envace's run was stored: only RWML is trained, from the stored SFT run's checkpoint.
    expect(creates(api).map((c) => [c.algo, c.initFrom?.runId])).toEqual([['rwml+grpo-real', 'run-1']]);
    expect(out.map((c) => c.key)).toEqual([
      'retail/1/envace/train',
      'retail/1/envace+tt-parallel-2/heldout',
      'retail/1/rwml',
      'retail/1/rwml/heldout',
      'retail/1/rwml/train',
    ]);
    // The stored envace run is evaluated under its stored id.
    expect(api.calls.find(([m]) => m === 'evals.run')![1]).toMatchObject({ runId: 'run-3', split: 'train' });
    expect(evalKeys(result.cells).sort()).toEqual(evalKeys(first.cells).sort());
    expect(result.cells).toHaveLength(first.cells.length);

    // Everything stored: nothing to do.
    const idle = fakeApi({}, home.runs);
    await runExperiment(idle, SUITE, { done: first.cells });
    expect(idle.calls).toEqual([]);
  });

  it('a failed run or a refused evaluation is recorded and the rest goes on; a failed SFT run skips its seed', async () => {
    const api = fakeApi({
      outcome: (c) => (c.algo === 'grpo-real' ? 'failed' : 'completed'),
      evalError: (c, n) => (c.algo === 'envace' && n > 0 ? 'no rehearsal here' : null),
    });
    const result = await runExperiment(api, SUITE);
    expect(result.failures.map((f) => [f.method, f.runId, f.error])).toEqual([
      ['grpo-real', 'run-2', 'out of memory'],
      ['envace', 'run-3', 'evaluating retail/1/envace+tt-parallel-2/heldout: no rehearsal here'],
    ]);
    expect(evalKeys(result.cells)).toContain('retail/1/rwml/train');

    const noSft = fakeApi({ outcome: (c) => (c.algo === 'sft' ? 'failed' : 'completed') });
    const skipped = await runExperiment(noSft, { ...SUITE, seeds: [1, 2] });
    expect(creates(noSft).map((c) => c.algo)).toEqual(['sft', 'sft']);
    expect(skipped.failures.filter((f) => f.error.includes('SFT run did not finish')).map((f) => [f.seed, f.method])).toEqual([
      [1, 'grpo-real'],
      [1, 'envace'],
      [1, 'rwml'],
      [2, 'grpo-real'],
      [2, 'envace'],
      [2, 'rwml'],
    ]);
  });

  it('aborting cancels the run in progress and stops with what finished; progress counts the runs to train', async () => {
    const api = fakeApi({ outcome: (c) => (c.algo === 'grpo-real' ? 'hold' : 'completed') });
    const controller = new AbortController();
    const progress: ExperimentProgress[] = [];
    const run = runExperiment(api, SUITE, {
      signal: controller.signal,
      onProgress: (p) => {
        progress.push(p);
        if (p.label === 'grpo-real' && p.step === p.totalSteps) controller.abort();
      },
    });
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExperimentCancelled);
    expect(api.calls.filter(([m]) => m === 'runs.cancel')).toEqual([['runs.cancel', { id: 'run-2' }]]);
    expect((error as ExperimentCancelled).partial.cells.map((c) => c.key)).toEqual(['retail/1/sft', 'retail/1/sft/heldout', 'retail/1/sft/train', 'retail/1/sft+tt-parallel-2/heldout']);
    expect(creates(api)).toHaveLength(2);
    expect(progress.at(-1)).toMatchObject({ run: 2, runs: 4, label: 'grpo-real', step: 4 });
    // 10 SFT steps + 4 of grpo-real out of 10 + 3 × 4.
    expect(progress.at(-1)!.fraction).toBeCloseTo(14 / 22, 9);
  });

  it('refuses an invalid suite before creating any run', async () => {
    const api = fakeApi();
    await expect(runExperiment(api, { ...SUITE, seeds: [] })).rejects.toThrow(/at least one seed/);
    expect(api.calls).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { formatAction } from '../../../electron/engine/envs/parser';
import { getEnv } from '../../../electron/engine/envs/registry';
import type { Task, ToolEnv } from '../../../electron/engine/envs/types';
import { observationFidelity, realityCheck, summariseFidelity } from '../../../electron/engine/algorithms/fidelity';

let env: ToolEnv;
let task: Task;

beforeAll(async () => {
  env = await getEnv('retail', { worldSize: 5, counts: { train: 6, heldout: 1, ood: 0 } });
  task = env
    .tasks('train')
    .map((t) => env.task(t.id))
    .find((t) => t.gold.calls.length === 1)!;
});

describe('world-model fidelity', () => {
  it('compares exactly, by JSON fields and by character n-grams', () => {
    expect(observationFidelity('{"a":1}', '{"a":1}')).toEqual({ exact: true, jsonF1: 1, tokenF1: null, similarity: 1 });
    const f = observationFidelity('{"a":1,"b":2}', '{"a":1,"b":3}');
    expect(f.exact).toBe(false);
    expect(f.jsonF1).toBe(0.5);
    // Imagined prose where the world answered JSON recovered no field: 0, counted in the mean.
    expect(observationFidelity('Error: x', '{"a":1}').jsonF1).toBe(0);
    // Where the world did not answer JSON there is no field to recover: not applicable.
    expect(observationFidelity('{"a":1}', 'Error: no such order').jsonF1).toBeNull();
    // There the token F1 stands in: bags of words, order ignored.
    expect(observationFidelity('Error: order not found', 'Error: no such order').tokenF1).toBe(0.5); // 2 of 4 words on each side
    expect(observationFidelity('such no order Error:', 'Error: no such order').tokenF1).toBe(1);
  });

  it('summarises every observation in one F1 or the other, with the count of each', () => {
    const summary = summariseFidelity([
      { fidelity: observationFidelity('{"a":1,"b":2}', '{"a":1,"b":3}') },
      { fidelity: observationFidelity('plain text', '{"a":1}') },
      { fidelity: observationFidelity('Error: no such order', 'Error: no such order') },
    ]);
    expect(summary).toMatchObject({ compared: 3, meanJsonF1: 0.25, jsonCompared: 2, meanTokenF1: 1, textCompared: 1, exactRate: 1 / 3 });
    expect(summariseFidelity([{ fidelity: observationFidelity('x', '{"a":1}') }])).toMatchObject({ meanTokenF1: null, textCompared: 0, jsonCompared: 1 });
  });

  it('replays the rehearsed rollout in the real env and scores each imagined observation', async () => {
    const act = formatAction({ kind: 'calls', calls: task.gold.calls });
    const [real] = await realityCheck(env, task, [
      { index: 0, role: 'act', text: act },
      { index: 1, role: 'rehearse', text: 'x' },
    ]);
    expect(real.index).toBe(1);
    expect(real.fidelity.exact).toBe(false);
    // Imagining exactly what the world says is a perfect score.
    const again = await realityCheck(env, task, [
      { index: 3, role: 'act', text: act },
      { index: 4, role: 'rehearse', text: real.realText },
      { index: 5, role: 'act', text: '<answer>x</answer>' },
    ]);
    expect(again).toEqual([{ index: 4, realText: real.realText, fidelity: { exact: true, jsonF1: 1, tokenF1: null, similarity: 1 } }]);
  });
});

import { describe, expect, it } from 'vitest';
import { trainTokenizer } from '../../../../native-models/tokenizer';
import { demoCorpus, demoSegments, expertTranscripts } from '../../../../electron/engine/algorithms/demos';
import { probeCall } from '../../../../electron/engine/algorithms/error-probes';
import { isErrorObservation } from '../../../../electron/engine/envs/error-observation';
import { givenMask, specialIds } from '../../../../electron/engine/algorithms/layout';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import { Rng } from '../../../../electron/engine/random';
import type { Action } from '../../../../electron/engine/envs/types';

const calls = (args: Record<string, string | number>): Action => ({ kind: 'calls', calls: [{ name: 'get_order_details', arguments: args }] });

describe('error probes', () => {
  it('a probe changes exactly one digit of one argument that has digits, and nothing else', () => {
    for (let seed = 0; seed < 200; seed++) {
      const original = calls({ order_id: '#W1234567', reason: 'no longer needed', count: 3 });
      const probe = probeCall(original, new Rng(seed));
      if (probe?.kind !== 'calls') throw new Error('expected a call');
      const args = probe.calls[0].arguments;
      expect(probe.calls[0].name).toBe('get_order_details');
      expect([args.reason, args.count]).toEqual(['no longer needed', 3]);
      const wrong = String(args.order_id);
      expect(wrong).toHaveLength('#W1234567'.length);
      expect([...wrong].filter((ch, i) => ch !== '#W1234567'[i])).toHaveLength(1);
      expect(wrong.slice(0, 2)).toBe('#W');
    }
    // Seeded: the same draw twice.
    expect(probeCall(calls({ order_id: '#W1234567' }), new Rng(7))).toEqual(probeCall(calls({ order_id: '#W1234567' }), new Rng(7)));
    // Nothing to change: no probe.
    expect(probeCall(calls({ reason: 'ordered by mistake' }), new Rng(1))).toBeNull();
    expect(probeCall({ kind: 'answer', text: '42' }, new Rng(1))).toBeNull();
  });

  it('demonstrations with probes show the wrong call and the real error first, then the expert run unchanged; the wrong call is never an act target', async () => {
    const env = new RetailEnv({ worldMode: 'procedural', worldSize: 5, taskMix: 'lookups', counts: { train: 24, heldout: 1, ood: 1 } });
    const tasks = env.tasks('train').map((r) => env.task(r.id));
    const plain = await expertTranscripts(env, tasks, 'none', 0);
    const probed = await expertTranscripts(env, tasks, 'none', 0, 1);
    expect(plain.every((t) => t.steps.every((s) => !s.probe))).toBe(true);
    for (const [k, t] of probed.entries()) {
      const [first, ...rest] = t.steps;
      expect(first.probe, t.taskId).toBe(true);
      expect(isErrorObservation(first.observation ?? ''), first.observation ?? '').toBe(true);
      // The expert's own run is what it was without the probe: the probe went to another episode.
      expect(rest).toEqual(plain[k].steps);
      expect(t.envCalls).toBe(plain[k].envCalls + 1);
    }
    // About the share asked for.
    const half = await expertTranscripts(env, tasks, 'none', 0, 0.5);
    const share = half.filter((t) => t.steps.some((s) => s.probe)).length / half.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.8);

    const tok = trainTokenizer(demoCorpus(probed), { vocabSize: 400 });
    const sp = specialIds(tok);
    const demo = demoSegments(tok, sp, probed[0], 256, 1024)!;
    const act = givenMask(demo.segments, ['act']);
    const env_ = givenMask(demo.segments, ['env']);
    const acts = demo.segments.filter((s) => s.role === 'act');
    const [probeAct, expertAct] = acts;
    expect(probeAct.untrained).toBe(true);
    // Offsets of each segment in the flat row.
    const start = (seg: (typeof demo.segments)[number]) => demo.segments.slice(0, demo.segments.indexOf(seg)).reduce((n, s) => n + s.ids.length, 0);
    const sum = (mask: number[], seg: (typeof demo.segments)[number]) => mask.slice(start(seg), start(seg) + seg.ids.length).reduce((a, b) => a + b, 0);
    expect(sum(act, probeAct)).toBe(0);
    expect(sum(act, expertAct)).toBe(expertAct.ids.length - 1);
    const errorObs = demo.segments[demo.segments.indexOf(probeAct) + 1];
    expect(errorObs.role).toBe('env');
    expect(sum(env_, errorObs)).toBe(errorObs.ids.length - 1);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { expertTranscripts, type DemoTranscript, demoSegments } from '../../../electron/engine/algorithms/demos';
import { givenMask } from '../../../electron/engine/algorithms/layout';
import type { RolloutSettings } from '../../../electron/engine/algorithms/rollout';
import { memoryRows, type SftMemoryInputs, withRehearsalMemories } from '../../../electron/engine/algorithms/sft-memory';
import { formatAction } from '../../../electron/engine/envs/parser';
import { RetailEnv } from '../../../electron/engine/envs/retail/env';
import type { Task } from '../../../electron/engine/envs/types';
import { countingEnv } from './counting-env';
import { scriptedPolicy } from './scripted-policy';

const settings: RolloutSettings = {
  maxTurns: 3,
  maxTokensPerTurn: 200,
  maxObservationTokens: 400,
  temperature: 1,
  topP: 1,
  pReal: 0,
  toolSchemas: 'none',
  rehearsePrompt: 'inline',
  memoryTokens: 64,
};
/** What the scripted world model predicts: a marker only a rehearsal can have written. */
const PREDICTED = '{"status":"rehearsed-marker"}';
const policy = () =>
  scriptedPolicy({
    act: (p) =>
      p.split('<|act|>').length === 2
        ? formatAction({ kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: '#W0000000' } }] })
        : '<answer>rehearsed-marker</answer>',
    obs: () => PREDICTED,
  });

let env: ReturnType<typeof countingEnv>;
let tasks: Task[];
let transcripts: DemoTranscript[];
beforeAll(async () => {
  const retail = new RetailEnv({ worldMode: 'procedural', taskMix: 'lookups', worldSize: 5, layout: 'varied', counts: { train: 16, heldout: 1, ood: 1 } });
  tasks = retail.tasks('train').map((t) => retail.task(t.id));
  transcripts = await expertTranscripts(retail, tasks, 'none', 0);
  env = countingEnv(retail);
});

const inputs = (p: ReturnType<typeof policy>, sft: SftMemoryInputs['sft']): SftMemoryInputs => ({
  policy: p,
  env,
  settings,
  sft,
  seed: 7,
  transcripts: new Map(transcripts.map((t) => [t.taskId, t])),
  tasks: new Map(tasks.map((t) => [t.id, t])),
});

describe('memory-aware SFT', () => {
  it('picks its rows from (seed, step): deterministic, about the asked share, none before memoryFrom or at share 0', () => {
    const sft = { memoryFraction: 0.25, memoryFrom: 11 };
    expect(memoryRows(sft, 7, 40, 8)).toEqual(memoryRows(sft, 7, 40, 8));
    const rows = Array.from({ length: 300 }, (_, s) => memoryRows(sft, 7, 11 + s, 8)).flat();
    const share = rows.filter((r) => r !== null).length / rows.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.3);
    // 1 or 2 rehearsals per memory, both drawn.
    expect(new Set(rows.filter((r) => r !== null))).toEqual(new Set([1, 2]));
    expect(memoryRows(sft, 7, 10, 8).every((r) => r === null)).toBe(true);
    expect(memoryRows({ memoryFraction: 0, memoryFrom: 1 }, 7, 40, 8).every((r) => r === null)).toBe(true);
  });

  it("lays demonstrations out behind a memory of the policy's own private rehearsals: no env call, the memory never a target", async () => {
    const p = policy();
    const batch = transcripts.map((t) => demoSegments(p.tokenizer, p.specials, t, settings.maxObservationTokens, p.maxSeqLen)!);
    const sft = { memoryFraction: 0.5, memoryFrom: 1 };
    const step = 3;
    const plan = memoryRows(sft, 7, step, batch.length);
    const before = { ...env.counts };
    const out = await withRehearsalMemories(inputs(p, sft), step, batch);
    expect(env.counts).toEqual(before);
    // The policy was asked for acts and observations (rehearsals), once per planned rehearsal at least.
    expect(p.calls.obs).toBeGreaterThanOrEqual(plan.reduce<number>((n, r) => n + (r ?? 0), 0));
    expect(out.memories).toBe(plan.filter((r) => r !== null).length);
    expect(out.memories).toBeGreaterThan(0);
    expect(out.memoryTokens).toBeGreaterThan(0);
    out.batch.forEach((d, i) => {
      const memory = d.segments.filter((s) => s.role === 'memory');
      if (plan[i] === null) {
        expect(d).toBe(batch[i]);
        return;
      }
      expect(memory).toHaveLength(1);
      // The rehearsal's predicted observation and answer, as buildMemory summarises them.
      expect(memory[0].text).toContain(`expect: ${PREDICTED}`);
      expect(memory[0].text).toContain('Consensus answer: rehearsed-marker');
      expect(memory[0].text.match(/^Rehearsal \d/gm)).toHaveLength(plan[i]!);
      // Same demonstration otherwise: its acts and observations follow the memory unchanged.
      const rest = (segs: typeof d.segments) => segs.filter((s) => s.role !== 'memory').map((s) => s.ids);
      expect(rest(d.segments)).toEqual(rest(batch[i].segments));
      const mask = givenMask(d.segments, ['act', 'env']);
      let at = 0;
      for (const s of d.segments) {
        const m = mask.slice(at, at + s.ids.length);
        if (s.role === 'memory' || s.role === 'prompt') expect(m.every((x) => x === 0)).toBe(true);
        at += s.ids.length;
      }
    });
  });
});

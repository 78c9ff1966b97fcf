import { beforeAll, describe, expect, it } from 'vitest';
import { demoCorpus, expertTranscripts, fitDemonstration } from '../../../../electron/engine/algorithms/demos';
import { envTokenizer } from '../../../../electron/engine/algorithms/env-tokenizer';
import { flatten, specialIds } from '../../../../electron/engine/algorithms/layout';
import { runOracle } from '../../../../electron/engine/envs/oracle';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import { dbHash, forkDb, type JsonObject } from '../../../../electron/engine/envs/tau2/db';
import { SPLITS, type Split, type Task } from '../../../../electron/engine/envs/types';

const OPTS = { worldMode: 'procedural', taskMix: 'lookups', worldSize: 5, counts: { train: 120, heldout: 30, ood: 12 } } as const;
let varied: RetailEnv;
let fixed: RetailEnv;
beforeAll(() => {
  varied = new RetailEnv({ ...OPTS, layout: 'varied' });
  fixed = new RetailEnv(OPTS);
});
const all = (e: RetailEnv, split: Split): Task[] => e.tasks(split).map((r) => e.task(r.id));
const userRecords = (e: RetailEnv, t: Task) => Object.values(e.worldOf(t).users as JsonObject) as JsonObject[];

describe("retail layout: 'varied'", () => {
  it('is deterministic per task: another env with the same options reads every task and world the same', () => {
    const again = new RetailEnv({ ...OPTS, layout: 'varied' });
    for (const split of SPLITS) {
      const a = all(varied, split);
      const b = all(again, split);
      expect(b.map((t) => [t.id, t.instruction, t.systemNote ?? null, t.gold])).toEqual(a.map((t) => [t.id, t.instruction, t.systemNote ?? null, t.gold]));
      // Key order is part of what a record reads like, so compare the serialised worlds, not only their hashes.
      a.forEach((t, k) => expect(JSON.stringify(again.worldOf(b[k]))).toBe(JSON.stringify(varied.worldOf(t))));
    }
  });

  it('changes only the text around the entities: the same calls, answers and end-state checks as the fixed layout', async () => {
    for (const split of SPLITS) {
      const v = all(varied, split);
      expect(v.map((t) => [t.id, t.gold])).toEqual(all(fixed, split).map((t) => [t.id, t.gold]));
      const oracle = await runOracle(varied, split);
      expect([split, oracle.success, oracle.score]).toEqual([split, 1, 1]);
    }
    // Same entities, another order: a varied world is the fixed one with its records' keys drawn.
    const [t] = all(varied, 'heldout');
    const canon = (x: unknown): unknown =>
      Array.isArray(x) ? x.map(canon) : x && typeof x === 'object' ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, canon((x as JsonObject)[k])])) : x;
    const strip = (u: JsonObject) => Object.fromEntries(['user_id', 'name', 'address', 'orders', 'email', 'payment_methods'].map((k) => [k, u[k]]));
    expect(userRecords(varied, t).map((u) => canon(strip(u)))).toEqual(userRecords(fixed, fixed.task(t.id)).map((u) => canon(u)));
    expect(dbHash(forkDb(varied.worldOf(t)))).not.toBe(dbHash(forkDb(fixed.worldOf(fixed.task(t.id)))));
  });

  it('varies phrasing, preamble, system note, field order and distractor fields in a measurable share of the tasks', () => {
    const train = all(varied, 'train');
    const fixedText = new Map(all(fixed, 'train').map((t) => [t.id, t.instruction]));
    const reworded = train.filter((t) => t.instruction !== fixedText.get(t.id));
    expect(reworded.length / train.length).toBeGreaterThan(0.75);
    // Many distinct texts per family once the entity is masked: phrasing × preamble × closing.
    for (const family of ['order-status', 'item-price', 'user-city']) {
      const texts = new Set(train.filter((t) => t.meta?.family === family).map((t) => t.instruction.replace(/#W\d+|\d+|[a-z]+_[a-z]+_\d+/g, 'ID')));
      expect(texts.size, family).toBeGreaterThan(20);
    }
    const lengths = train.map((t) => t.instruction.length);
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeGreaterThan(100);
    // Text after the question runs from nothing to a long paragraph, so the act's distance to the id varies by tens of tokens.
    const idOf = (t: Task) => Object.entries((t.meta?.params ?? {}) as Record<string, unknown>).find(([k]) => /_id$/.test(k))?.[1] as string;
    const tails = train.map((t) => t.instruction.length - (t.instruction.indexOf(idOf(t)) + idOf(t).length));
    expect(Math.min(...tails)).toBeLessThan(3);
    expect(Math.max(...tails)).toBeGreaterThan(250);
    const noted = train.filter((t) => t.systemNote);
    expect(noted.length / train.length).toBeGreaterThan(0.4);
    expect(noted.length / train.length).toBeLessThan(0.95);
    const orders = new Set(train.map((t) => Object.keys(userRecords(varied, t)[0]).join(',')));
    expect(orders.size).toBeGreaterThan(20);
    const withExtra = train.filter((t) => 'loyalty_tier' in userRecords(varied, t)[0] || 'channel' in userRecords(varied, t)[0] || 'rating' in userRecords(varied, t)[0]);
    expect(withExtra.length / train.length).toBeGreaterThan(0.2);
    // The fixed layout keeps one phrasing and no note.
    expect(all(fixed, 'train').some((t) => t.systemNote)).toBe(false);
  });

  it('moves the id in the SFT prompts: its token position spreads over tens of tokens', async () => {
    const transcripts = await expertTranscripts(varied, all(varied, 'train'), 'none', 0);
    // The word-start tokenizer, so an id is the same pieces wherever it sits (env-tokenizer.ts).
    const tok = envTokenizer(demoCorpus(transcripts), 1024, { wordStarts: 'separate' });
    const sp = specialIds(tok);
    const positions = transcripts.map((t) => {
      const fit = fitDemonstration(tok, sp, t, 104, 1024);
      if (!('demo' in fit)) throw new Error(fit.dropped);
      const ids = flatten(fit.demo.segments);
      const user = ids.indexOf(sp.user);
      // An order id's `#` merges with the space before it; its `W` and digits are the id's own pieces.
      const id = /W\d{7}|\d{10}|[a-z]+_[a-z]+_\d{4}/.exec(t.instruction)![0];
      const want = tok.encode(id, { parseSpecial: false });
      // The id's first token past the start of the user block: what the system note and preamble shift.
      const at = ids.findIndex((_, i) => i > user && want.every((x, k) => ids[i + k] === x));
      expect(at, t.taskId).toBeGreaterThan(user);
      return at;
    });
    const sorted = [...positions].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.9)] - sorted[Math.floor(sorted.length * 0.1)]).toBeGreaterThan(30);
    expect(new Set(positions).size).toBeGreaterThan(30);
  });

  it("tokenizerDigits 'pairs': an id's digits are the same pair pieces in the instruction, the call and the observation", async () => {
    const transcripts = await expertTranscripts(varied, all(varied, 'train').slice(0, 40), 'none', 0);
    const tok = envTokenizer(demoCorpus(transcripts), 1024, { wordStarts: 'separate', digits: 'pairs' });
    const digitPieces = (text: string, id: string) => {
      const pieces = tok.encode(text, { parseSpecial: false }).map((i) => tok.decode([i]));
      // The run of digit pieces that spells the id's digits.
      for (let i = 0; i < pieces.length; i++) {
        let j = i;
        while (j < pieces.length && /^[0-9]+$/.test(pieces[j])) j++;
        if (pieces.slice(i, j).join('') === id) return pieces.slice(i, j);
      }
      throw new Error(`${id} not in ${pieces.join('|')}`);
    };
    let checked = 0;
    for (const t of transcripts) {
      const digits = /\d{7,10}/.exec(t.instruction)?.[0];
      if (!digits) continue;
      const inInstruction = digitPieces(t.instruction, digits);
      expect(inInstruction.every((p) => p.length <= 2)).toBe(true);
      expect(inInstruction.length).toBe(Math.ceil(digits.length / 2));
      expect(digitPieces(t.steps[0].actionText, digits), t.taskId).toEqual(inInstruction);
      expect(digitPieces(t.steps[0].observation!, digits), t.taskId).toEqual(inInstruction);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('refuses an unknown layout by name', () => {
    expect(() => new RetailEnv({ ...OPTS, layout: 'shuffled' as never })).toThrow(/layout must be one of fixed, varied/);
  });
});

/**
 * `tau-retail` — the pretrained track's retail benchmark over the same 16 tools as `retail`.
 * Rewards as the benchmarks define them: DB hash against the gold replay, plus the strings to
 * communicate (v1 `outputs`, tau2 `communicate_info` where the reward basis has COMMUNICATE);
 * tau2 tasks whose reward needs NL assertions judged are reported unchecked, never passed.
 */
import { dataPath } from '../data-dir';
import { ToolEpisode } from '../episode-base';
import { canonicalJson, dbHash, forkDb, loadFrozenDb, type Db } from '../tau2/db';
import { replayCalls, tau2Check } from '../tau2/evaluate';
import { replayExpert } from '../tau2/expert';
import { tau2Checklist } from '../tau2/task-file';
import { executeCall, loadTau2ToolSpecs } from '../tau2/tools';
import { RETAIL_TOOLS, RETAIL_WRITE_TOOLS } from '../retail/tools';
import type { Episode, ExpertPolicy, Split, Task, TaskRef, ToolEnv, ToolSpec } from '../types';
import { loadTau2Retail, loadV1Train, type TicketTask } from './tasks';

export interface ExcludedTask {
  id: string;
  reason: string;
}

export class TauRetailEnv implements ToolEnv {
  readonly id = 'tau-retail';
  readonly description = 'tau-bench v1 retail train tickets for training; tau2 retail tasks held out (ticket mode, DB hash + outputs)';
  readonly track = 'pretrained' as const;
  private readonly base: Db;
  private readonly specs: ToolSpec[];
  private readonly tickets = new Map<string, TicketTask>();
  private readonly taskById = new Map<string, Task>();
  private readonly expected = new Map<string, string>();
  /** v1 train tasks left out, with why (gold fails under tau2 rules, or it duplicates a tau2 task). */
  readonly excluded: ExcludedTask[] = [];

  constructor() {
    this.base = loadFrozenDb(dataPath('tau2-bench', 'domains', 'retail', 'db.json'));
    this.specs = loadTau2ToolSpecs('retail');
    const held = loadTau2Retail();
    const heldGold = new Set(held.map((t) => canonicalJson(t.goldCalls)));
    for (const t of held) this.add(t);
    for (const t of loadV1Train()) {
      const failing = this.failingGoldCall(t);
      if (failing) this.excluded.push({ id: t.id, reason: `gold ${failing}` });
      else if (heldGold.has(canonicalJson(t.goldCalls))) this.excluded.push({ id: t.id, reason: 'same gold actions as a held-out tau2 task' });
      else this.add(t);
    }
  }

  /** The first gold write that tau2's tools refuse (such a task has no meaningful end state). */
  private failingGoldCall(t: TicketTask): string | null {
    const db = forkDb(this.base);
    for (const c of t.goldCalls) {
      const out = executeCall(RETAIL_TOOLS, this.specs, db, c).observation;
      if (out.startsWith('Error:') && RETAIL_WRITE_TOOLS.includes(c.name)) return `${c.name} fails: ${out}`;
    }
    return null;
  }

  private add(t: TicketTask): void {
    const answer = t.communicate.length ? t.communicate.join('; ') : 'Done.';
    const writes = t.goldCalls.filter((c) => RETAIL_WRITE_TOOLS.includes(c.name));
    this.tickets.set(t.id, t);
    this.taskById.set(t.id, {
      id: t.id,
      env: this.id,
      split: t.split,
      instruction: t.ticket,
      gold: { calls: t.goldCalls, answer },
      checklist: tau2Checklist(writes, t, RETAIL_WRITE_TOOLS),
      maxTurns: 2 * t.goldCalls.length + 10,
      meta: { rewardBasis: t.rewardBasis },
    });
  }

  tools(): ToolSpec[] {
    return this.specs;
  }

  tasks(split: Split): TaskRef[] {
    return [...this.taskById.values()].filter((t) => t.split === split).map((t) => ({ id: t.id, split: t.split, instruction: t.instruction }));
  }

  task(id: string): Task {
    const t = this.taskById.get(id);
    if (!t) throw new Error(`tau-retail has no task '${id}'`);
    return t;
  }

  /** End-state hash after replaying a task's gold actions on a fresh copy of the DB (cached). */
  expectedHash(id: string): string {
    let h = this.expected.get(id);
    if (!h) {
      h = dbHash(replayCalls(this.base, RETAIL_TOOLS, this.specs, this.task(id).gold.calls));
      this.expected.set(id, h);
    }
    return h;
  }

  async reset(task: Task, _seed = 0): Promise<Episode> {
    const t = this.tickets.get(task.id);
    if (!t) throw new Error(`tau-retail has no task '${task.id}'`);
    const expectedHash = this.expectedHash(task.id);
    const db = forkDb(this.base);
    return new ToolEpisode(task, '', {
      execute: (call) => executeCall(RETAIL_TOOLS, this.specs, db, call),
      check: (transcript) =>
        tau2Check({
          criteria: { rewardBasis: t.rewardBasis, actions: [], communicate: t.communicate, nlAssertions: t.nlAssertions },
          finalDb: db,
          expectedHash,
          transcript,
        }),
    });
  }

  expert(task: Task): ExpertPolicy {
    return replayExpert(task.gold.calls, task.gold.answer ?? 'Done.');
  }

  /** Hash of the untouched DB. */
  initialHash(): string {
    return dbHash(forkDb(this.base));
  }
}

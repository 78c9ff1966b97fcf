/**
 * `retail` — the from-scratch track's retail world: the tau2 retail DB and its 16 tools, with
 * procedurally generated tasks (families.ts) over a `worldSize`-user slice of the DB (world.ts).
 * Splits: train and heldout share templates but not users; ood adds unseen templates and longer
 * chains. Success = the end-state DB hash equals the gold replay's AND the answer is right.
 *
 * `worldMode: 'procedural'` replaces the DB slice with a fresh small world per task (procedural.ts):
 * the same families, tools and checks, but held-out tasks are about entities no training task has.
 */
import { dataPath } from '../data-dir';
import { ToolEpisode } from '../episode-base';
import { checklistAnswerPasses } from './answer-check';
import { canonicalJson, dbHash, forkDb, loadFrozenDb, type Db } from '../tau2/db';
import { scriptExpert } from '../tau2/script-expert';
import { executeCall, loadTau2ToolSpecs } from '../tau2/tools';
import {
  SPLITS,
  type ChecklistItem,
  type Episode,
  type ExpertPolicy,
  type Split,
  type Task,
  type TaskRef,
  type ToolCall,
  type ToolEnv,
  type ToolSpec,
} from '../types';
import { FAMILIES, type Family, type Params } from './families';
import { PROCEDURAL_MAX_USERS, PROCEDURAL_MIN_USERS, proceduralWorld } from './procedural';
import { LAYOUTS, type Layout, systemNote, variedInstruction } from './layouts';
import { RETAIL_TOOLS } from './tools';
import { buildWorld, hashString, pick, seededRng, WorldConfigError, type RetailWorld } from './world';

export interface RetailOptions {
  /** Users in play (5–438): how much of the world a model has to internalise. */
  worldSize?: number;
  /** Seed of the world draw (which users). */
  worldSeed?: number;
  /** Seed of the task draw (which tasks per split). */
  seed?: number;
  /** Tasks per split. */
  counts?: Partial<Record<Split, number>>;
  /** fixed: tasks over one slice of the tau2 DB; procedural: a fresh world per task (worldSize users each). */
  worldMode?: WorldMode;
  /** Which families train and heldout draw from (ood keeps its own): the curriculum from look-ups to everything. */
  taskMix?: TaskMix;
  /** fixed: one phrasing per family and records in one field order; varied: both drawn per task (layouts.ts). */
  layout?: Layout;
}

export const WORLD_MODES = ['fixed', 'procedural'] as const;
export type WorldMode = (typeof WORLD_MODES)[number];
export const TASK_MIXES = ['lookups', 'chains', 'all'] as const;
export type TaskMix = (typeof TASK_MIXES)[number];
/** Each mix adds harder kinds to the one before: one-call look-ups, then multi-call chains, then writes and refusals. */
const MIX_KINDS: Record<TaskMix, ReadonlyArray<Family['kind']>> = {
  lookups: ['lookup'],
  chains: ['lookup', 'chain'],
  all: ['lookup', 'chain', 'write', 'impossible'],
};

export const RETAIL_DEFAULTS = { worldSize: 20, worldSeed: 0, seed: 0, counts: { train: 200, heldout: 50, ood: 50 } } as const;

/** Procedural worlds kept in memory at once (a batch of rollouts or an evaluation's worth). */
const PROCEDURAL_WORLDS_KEPT = 256;

/** How many draws a split may spend per task before settling for fewer (small worlds run out). */
const ATTEMPTS_PER_TASK = 20;

export class RetailEnv implements ToolEnv {
  readonly id = 'retail';
  readonly description = 'tau2 retail DB and its 16 tools: look-ups, chains, writes and impossible requests over a sized slice of the world';
  readonly track = 'scratch' as const;
  /** The DB slice in play (fixed mode; a procedural env has no shared users, each task has its own world). */
  readonly world: RetailWorld;
  readonly worldMode: WorldMode;
  readonly taskMix: TaskMix;
  readonly layout: Layout;
  private readonly base: Db;
  private readonly worldSize: number;
  private readonly worldSeed: number;
  /**
   * Procedural mode: recently used tasks' frozen worlds, by task id. Only a window is kept: a world
   * regenerates exactly from its task's seed in well under a millisecond, while holding every world
   * of thousands of training tasks kept ~2M small objects alive, and each major GC of the training
   * worker marked them all (an SFT step on 8,000 tasks took twice as long as on 200).
   */
  private readonly worlds = new Map<string, Db>();
  private readonly specs: ToolSpec[];
  private readonly counts: Record<Split, number>;
  private readonly seed: number;
  private readonly bySplit = new Map<Split, Task[]>();
  private readonly byId = new Map<string, Task>();
  private readonly expectedHashes = new Map<string, string>();

  constructor(opts: RetailOptions = {}) {
    this.worldMode = opts.worldMode ?? 'fixed';
    this.taskMix = opts.taskMix ?? 'all';
    this.layout = opts.layout ?? 'fixed';
    if (!LAYOUTS.includes(this.layout)) throw new WorldConfigError(`retail layout must be one of ${LAYOUTS.join(', ')}, got ${JSON.stringify(opts.layout)}`);
    if (!WORLD_MODES.includes(this.worldMode)) throw new WorldConfigError(`retail worldMode must be one of ${WORLD_MODES.join(', ')}, got ${JSON.stringify(opts.worldMode)}`);
    if (!TASK_MIXES.includes(this.taskMix)) throw new WorldConfigError(`retail taskMix must be one of ${TASK_MIXES.join(', ')}, got ${JSON.stringify(opts.taskMix)}`);
    this.specs = loadTau2ToolSpecs('retail');
    this.worldSize = opts.worldSize ?? RETAIL_DEFAULTS.worldSize;
    this.worldSeed = opts.worldSeed ?? RETAIL_DEFAULTS.worldSeed;
    if (this.worldMode === 'fixed') {
      this.base = loadFrozenDb(dataPath('tau2-bench', 'domains', 'retail', 'db.json'));
      this.world = buildWorld(this.base, this.worldSize, this.worldSeed);
    } else {
      const size = this.worldSize;
      if (!Number.isInteger(size) || size < PROCEDURAL_MIN_USERS || size > PROCEDURAL_MAX_USERS) {
        throw new WorldConfigError(`procedural retail world size must be an integer in [${PROCEDURAL_MIN_USERS}, ${PROCEDURAL_MAX_USERS}] users per task, got ${size}`);
      }
      this.base = {};
      this.world = { size, users: { train: [], heldout: [], ood: [] } };
    }
    this.seed = opts.seed ?? RETAIL_DEFAULTS.seed;
    this.counts = { ...RETAIL_DEFAULTS.counts, ...opts.counts };
    for (const [name, v] of Object.entries({ worldSeed: opts.worldSeed, seed: opts.seed })) {
      if (v !== undefined && !Number.isInteger(v)) throw new WorldConfigError(`${name} must be an integer, got ${JSON.stringify(v)}`);
    }
    for (const [split, n] of Object.entries(this.counts)) {
      if (!Number.isInteger(n) || n < 0) throw new WorldConfigError(`task count for ${split} must be a non-negative integer, got ${n}`);
    }
  }

  tools(): ToolSpec[] {
    return this.specs;
  }

  tasks(split: Split): TaskRef[] {
    return this.generated(split).map((t) => ({ id: t.id, split: t.split, instruction: t.instruction }));
  }

  task(id: string): Task {
    const split = id.split('-')[0] as Split;
    if (SPLITS.includes(split)) this.generated(split);
    const t = this.byId.get(id);
    if (!t) throw new Error(`retail has no task '${id}'`);
    return t;
  }

  private generated(split: Split): Task[] {
    let tasks = this.bySplit.get(split);
    if (!tasks) {
      tasks = this.generate(split);
      this.bySplit.set(split, tasks);
      for (const t of tasks) this.byId.set(t.id, t);
    }
    return tasks;
  }

  private generate(split: Split): Task[] {
    const rng = seededRng(hashString(`retail:${this.seed}:${split}`));
    // ood keeps its own templates whatever the mix: it is the test of what training never showed.
    const families = FAMILIES.filter((f) => f.splits.includes(split) && (split === 'ood' || MIX_KINDS[this.taskMix].includes(f.kind)));
    const users = this.world.users[split];
    const want = this.counts[split];
    const seen = new Set<string>();
    const tasks: Task[] = [];
    for (let attempt = 0; tasks.length < want && attempt < want * ATTEMPTS_PER_TASK; attempt++) {
      // Families in turn keep the mix balanced until one runs out of distinct tasks. A procedural
      // world never runs out, so there each slot retries its own family on fresh worlds.
      const family = families[(this.worldMode === 'procedural' ? tasks.length : attempt) % families.length];
      if (this.worldMode === 'procedural') {
        const worldSeed = hashString(`retail:procedural:${this.worldSeed}:${this.seed}:${split}:${attempt}`);
        const world = proceduralWorld(worldSeed, split, this.worldSize, this.layout);
        const wrng = seededRng(worldSeed ^ 0x5bd1e995);
        const params = family.sample(world.db, pick(world.userIds, wrng), wrng, { address: world.freshAddress });
        if (!params) continue;
        const task = this.buildTask(split, tasks.length, family, params, world.db, { worldMode: 'procedural', worldSeed });
        this.remember(task.id, world.db);
        tasks.push(task);
        continue;
      }
      const params = family.sample(this.base, pick(users, rng), rng);
      if (!params) continue;
      const key = `${family.id}:${canonicalJson(params)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      tasks.push(this.buildTask(split, tasks.length, family, params, this.base));
    }
    return tasks;
  }

  /**
   * The frozen world a task plays in: the shared DB slice, or (procedural) the task's own world,
   * which its seed regenerates exactly — the same task id always meets the same entities.
   */
  worldOf(task: Task): Db {
    if (this.worldMode === 'fixed') return this.base;
    let db = this.worlds.get(task.id);
    if (!db) {
      const seed = task.meta?.worldSeed;
      if (typeof seed !== 'number') throw new Error(`retail task '${task.id}' has no procedural world seed`);
      db = proceduralWorld(seed, task.split, this.worldSize, this.layout).db;
    }
    this.remember(task.id, db);
    return db;
  }

  /** Keeps `db` as the most recently used world, dropping the least recently used past the window. */
  private remember(taskId: string, db: Db): void {
    this.worlds.delete(taskId);
    this.worlds.set(taskId, db);
    if (this.worlds.size > PROCEDURAL_WORLDS_KEPT) this.worlds.delete(this.worlds.keys().next().value as string);
  }

  /** Run the family's expert on a private copy to get the gold calls; check its answer against the DB. */
  private buildTask(split: Split, index: number, family: Family, params: Params, base: Db, worldMeta: Params = {}): Task {
    const db = forkDb(base);
    const expert = scriptExpert(family.script(params));
    const calls: ToolCall[] = [];
    let observation = '';
    let final = expert.next(observation);
    for (; final.kind === 'calls'; final = expert.next(observation)) {
      calls.push(...final.calls);
      observation = final.calls.map((c) => executeCall(RETAIL_TOOLS, this.specs, db, c).observation).join('\n');
    }
    const answerText = final.kind === 'answer' ? final.text : '';
    const right = family.answer(base, params);
    const answerItem: ChecklistItem = {
      kind: 'answer',
      weight: 2,
      expected: [right.expected],
      match: right.match,
      ...(right.tolerance !== undefined ? { tolerance: right.tolerance } : {}),
    };
    if (!checklistAnswerPasses(answerItem, answerText)) {
      throw new Error(
        `retail ${family.id}: expert answered ${JSON.stringify(answerText)}, the DB says ${JSON.stringify(right.expected)} (${canonicalJson(params)})`,
      );
    }
    const checklist: ChecklistItem[] = [
      ...calls.map((c): ChecklistItem => ({ kind: 'call', weight: 1, name: c.name, args: c.arguments })),
      answerItem,
      ...(family.extraItems?.(params) ?? []),
    ];
    const id = `${split}-${String(index).padStart(4, '0')}-${family.id}`;
    this.expectedHashes.set(id, dbHash(db));
    // The layout's own stream, seeded by the task, so a task reads the same in every process.
    const lrng = seededRng(hashString(`retail:layout:${this.seed}:${id}`));
    const varied = this.layout === 'varied';
    const note = varied ? systemNote(lrng) : '';
    return {
      id,
      env: this.id,
      split,
      instruction: varied ? variedInstruction(family.id, family.instruction(params), params, lrng) : family.instruction(params),
      ...(note ? { systemNote: note } : {}),
      gold: { calls, answer: answerText },
      checklist,
      maxTurns: calls.length + 4,
      meta: { family: family.id, kind: family.kind, params, ...worldMeta },
    };
  }

  private familyOf(task: Task): Family {
    const f = FAMILIES.find((x) => x.id === task.meta?.family);
    if (!f) throw new Error(`retail task '${task.id}' has no known family`);
    return f;
  }

  async reset(task: Task, _seed = 0): Promise<Episode> {
    if (!this.expectedHashes.has(task.id)) this.task(task.id); // generates its split, or throws
    const expectedHash = this.expectedHashes.get(task.id) as string;
    const db = forkDb(this.worldOf(task));
    const answerItem = task.checklist.find((i) => i.kind === 'answer');
    return new ToolEpisode(task, '', {
      execute: (call) => executeCall(RETAIL_TOOLS, this.specs, db, call),
      check: (transcript) => {
        const hash = dbHash(db);
        const dbOk = hash === expectedHash;
        const answerOk = answerItem ? transcript.answer !== null && checklistAnswerPasses(answerItem, transcript.answer) : true;
        const checks = [
          { name: 'DB', passed: dbOk, ...(dbOk ? {} : { detail: `end-state hash ${hash.slice(0, 12)} ≠ expected ${expectedHash.slice(0, 12)}` }) },
          { name: 'ANSWER', passed: answerOk, ...(answerOk ? {} : { detail: `answered ${JSON.stringify(transcript.answer)}` }) },
        ];
        return { passed: dbOk && answerOk, checks };
      },
    });
  }

  expert(task: Task): ExpertPolicy {
    return scriptExpert(this.familyOf(task).script(task.meta?.params as Params));
  }

  /** Hash of the untouched world (what every read-only task must end with); procedural: of that task's world. */
  initialHash(task?: Task): string {
    return dbHash(forkDb(task ? this.worldOf(task) : this.base));
  }
}

/**
 * `tau2-telecom` — tau2's telecom domain in solo mode (pretrained track): the agent holds the
 * carrier's 13 tools and the user's 30 phone tools, and must fix the phone (no service, mobile
 * data, MMS) as the ticket describes. The 114 base tasks are split as tau2's split_tasks.json
 * (train → train, test → heldout; no ood).
 *
 * Rewards follow tau2: the product of the task's reward_basis parts — ENV_ASSERTION (functions
 * of the end state, assertions.ts) and ACTION (gold calls matched). No telecom task gates on
 * DB, but each task still has an expected end-state hash (the world after its gold calls), which
 * `TelecomEpisode.stateHash()` can be compared with.
 */
import { readFileSync } from 'node:fs';
import { dataPath } from '../data-dir';
import { ToolEpisode, type ToolEpisodeHooks } from '../episode-base';
import { dbHash, deepFreeze, forkDb, type Db } from '../tau2/db';
import { tau2Check, type AssertionOutcome, type Tau2Criteria } from '../tau2/evaluate';
import { replayExpert } from '../tau2/expert';
import { criteriaOf, tau2Checklist, type RawTau2Task } from '../tau2/task-file';
import { executeCall, loadTau2ToolSpecs, ToolError, type ToolImpl } from '../tau2/tools';
import type { ExpertPolicy, JsonValue, Split, Task, TaskRef, ToolCall, ToolEnv, ToolSpec } from '../types';
import { TELECOM_ASSERTIONS } from './assertions';
import { CARRIER_TOOLS } from './carrier-tools';
import { loadTelecomDb, TelecomDataError } from './data';
import { PHONE_TOOLS } from './phone-tools';
import { SETUP_FUNCTIONS } from './setup';

export const TELECOM_TOOLS: Record<string, ToolImpl> = { ...CARRIER_TOOLS, ...PHONE_TOOLS };

/** Tools that change the world; a task with no gold call would get "did not call" items for them. */
const WRITE_TOOLS = ['suspend_line', 'resume_line', 'send_payment_request', 'enable_roaming', 'disable_roaming', 'refuel_data', 'make_payment'];

type EnvAssertion = NonNullable<NonNullable<RawTau2Task['evaluation_criteria']>['env_assertions']>[number];

interface TelecomTaskData {
  criteria: Tau2Criteria;
  assertions: EnvAssertion[];
  /** Frozen world after the task's setup. */
  initialDb: Db;
  /** Hash of the world after the gold calls. */
  expectedHash: string;
  goldCalls: ToolCall[];
}

function readTelecomJson<T>(file: string): T {
  return JSON.parse(readFileSync(dataPath('tau2-bench', 'domains', 'telecom', file), 'utf8')) as T;
}

/** Evaluate a task's env assertions on a world. */
export function checkAssertions(assertions: readonly EnvAssertion[], db: Db): AssertionOutcome[] {
  return assertions.map((a) => {
    const want = a.assert_value ?? true;
    const got = TELECOM_ASSERTIONS[a.func_name](db, a.arguments);
    return {
      name: a.func_name,
      passed: got === want,
      ...(got === want ? {} : { detail: `${a.func_name}(${JSON.stringify(a.arguments)}) is ${got}, expected ${want}` }),
    };
  });
}

/** An episode that can also report the hash of its world (for the gold-replay end-state check). */
export class TelecomEpisode extends ToolEpisode {
  constructor(
    task: Task,
    hooks: ToolEpisodeHooks,
    private readonly db: Db,
  ) {
    super(task, '', hooks);
  }

  stateHash(): string {
    return dbHash(this.db);
  }
}

export class TelecomEnv implements ToolEnv {
  readonly id = 'tau2-telecom';
  readonly description = 'tau2 telecom, solo mode: carrier + phone tools, 114 tech-support tasks (no service, mobile data, MMS)';
  readonly track = 'pretrained' as const;
  private readonly specs: ToolSpec[];
  private readonly data = new Map<string, TelecomTaskData>();
  private readonly taskList: Task[] = [];

  constructor() {
    this.specs = loadTau2ToolSpecs('telecom', { userTools: true });
    const missing = this.specs.filter((s) => !TELECOM_TOOLS[s.name]).map((s) => s.name);
    if (missing.length) throw new TelecomDataError(`telecom tools without an implementation: ${missing.join(', ')}`);
    const base = loadTelecomDb();
    const splits = readTelecomJson<Record<string, string[]>>('split_tasks.json');
    const splitOf = new Map<string, Split>([
      ...(splits.train ?? []).map((id) => [id, 'train'] as const),
      ...(splits.test ?? []).map((id) => [id, 'heldout'] as const),
    ]);
    for (const raw of readTelecomJson<RawTau2Task[]>('tasks_base_release.json')) {
      const split = splitOf.get(raw.id);
      if (split) this.addTask(raw, base, split);
    }
  }

  private addTask(raw: RawTau2Task, base: Db, split: Split): void {
    const criteria = criteriaOf(raw);
    const assertions = raw.evaluation_criteria?.env_assertions ?? [];
    const unknown = assertions.filter((a) => !TELECOM_ASSERTIONS[a.func_name]).map((a) => a.func_name);
    if (unknown.length) throw new TelecomDataError(`task ${raw.id} uses unknown env assertion(s): ${unknown.join(', ')}`);
    const initialDb = deepFreeze(setUp(raw, base));
    const goldCalls: ToolCall[] = criteria.actions.map((a) => ({ name: a.name, arguments: a.arguments }));
    const goldDb = forkDb(initialDb);
    for (const c of goldCalls) executeCall(TELECOM_TOOLS, this.specs, goldDb, c);
    const checklistCalls = criteria.actions.map((a) => ({
      name: a.name,
      arguments: a.arguments,
      ...(a.compareArgs ? { compareArgs: a.compareArgs } : {}),
    }));
    this.taskList.push({
      id: raw.id,
      env: this.id,
      split,
      instruction: raw.ticket ?? raw.id,
      gold: { calls: goldCalls, answer: 'Done.' },
      checklist: tau2Checklist(checklistCalls, criteria, WRITE_TOOLS),
      maxTurns: Math.max(8, 2 * (goldCalls.length + 1)),
      meta: { rewardBasis: criteria.rewardBasis as JsonValue },
    });
    this.data.set(raw.id, { criteria, assertions, initialDb, expectedHash: dbHash(goldDb), goldCalls });
  }

  tools(): ToolSpec[] {
    return this.specs;
  }

  tasks(split: Split): TaskRef[] {
    return this.taskList.filter((t) => t.split === split).map((t) => ({ id: t.id, split, instruction: t.instruction }));
  }

  task(id: string): Task {
    const t = this.taskList.find((x) => x.id === id);
    if (!t) throw new Error(`tau2-telecom has no task '${id}'`);
    return t;
  }

  private dataOf(task: Task): TelecomTaskData {
    const d = this.data.get(task.id);
    if (!d) throw new Error(`tau2-telecom has no task '${task.id}'`);
    return d;
  }

  async reset(task: Task, _seed = 0): Promise<TelecomEpisode> {
    const d = this.dataOf(task);
    const db = forkDb(d.initialDb);
    const hooks: ToolEpisodeHooks = {
      execute: (call) => executeCall(TELECOM_TOOLS, this.specs, db, call),
      check: (transcript) =>
        tau2Check({ criteria: d.criteria, finalDb: db, expectedHash: d.expectedHash, transcript, envAssertions: checkAssertions(d.assertions, db) }),
    };
    return new TelecomEpisode(task, hooks, db);
  }

  expert(task: Task): ExpertPolicy {
    return replayExpert(this.dataOf(task).goldCalls, task.gold.answer ?? 'Done.');
  }

  /** Hash of the world after replaying the task's gold calls on a fresh copy. */
  expectedHash(taskId: string): string {
    return this.dataOf(this.task(taskId)).expectedHash;
  }

  /** The solo agent's policy and troubleshooting workflow, for the system prompt. */
  policy(): string {
    const read = (f: string) => readFileSync(dataPath('tau2-bench', 'domains', 'telecom', f), 'utf8');
    return `${read('main_policy_solo.md')}\n\n${read('tech_support_workflow_solo.md')}`;
  }
}

/** The world a task starts from: the base world with the task's setup functions applied. */
function setUp(raw: RawTau2Task, base: Db): Db {
  const init = raw.initial_state ?? {};
  // Telecom tasks set up their world only through functions; anything else would be ignored silently.
  if (init.initialization_data || init.message_history?.length)
    throw new TelecomDataError(`task ${raw.id} has initialization data or a message history, which tau2-telecom does not support`);
  const db = forkDb(base);
  for (const a of init.initialization_actions ?? []) {
    const fn = SETUP_FUNCTIONS[a.func_name];
    if (!fn) throw new TelecomDataError(`task ${raw.id} uses unknown setup function '${a.func_name}'`);
    try {
      fn(db, a.arguments);
    } catch (err) {
      if (err instanceof ToolError) throw new TelecomDataError(`task ${raw.id}: setup ${a.func_name} refused: ${err.message}`);
      throw err;
    }
  }
  return db;
}

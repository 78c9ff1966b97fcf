/**
 * `mock` — tau2's mock domain and its 10 tasks, for contract tests. Solo mode: the instruction
 * is the task's ticket, and the agent also holds the user's notification tools. Rewards follow
 * tau2 (DB hash over the agent's tables, ACTION, COMMUNICATE, ENV_ASSERTION); NL_ASSERTION is
 * reported as skipped. Every task is in `train` and `heldout` (there are too few to split);
 * `ood` is empty.
 */
import { readFileSync } from 'node:fs';
import { dataPath } from '../data-dir';
import { ToolEpisode } from '../episode-base';
import { dbHash, deepFreeze, forkDb, type Db, type JsonObject } from '../tau2/db';
import { tau2Check, type Tau2Criteria } from '../tau2/evaluate';
import { replayExpert } from '../tau2/expert';
import { criteriaOf, deepMerge, tau2Checklist, type RawTau2Task } from '../tau2/task-file';
import { executeCall, loadTau2ToolSpecs } from '../tau2/tools';
import type { Episode, ExpertPolicy, JsonValue, Split, Task, TaskRef, ToolCall, ToolEnv, ToolSpec } from '../types';
import { MOCK_AGENT_TABLES, MOCK_ASSERTIONS, MOCK_INIT_FUNCTIONS, MOCK_TOOLS } from './tools';

const WRITE_TOOLS = ['create_task', 'update_task_status'];

interface MockTaskData {
  raw: RawTau2Task;
  criteria: Tau2Criteria;
  /** Frozen world after the task's initial state is applied. */
  initialDb: Db;
  expectedHash: string;
  /** Gold actions plus the calls its env assertions imply (what the expert does). */
  expertCalls: ToolCall[];
  history: string;
}

function agentState(db: Db): Db {
  return Object.fromEntries(MOCK_AGENT_TABLES.map((t) => [t, db[t]]));
}

function readJson<T>(...parts: string[]): T {
  return JSON.parse(readFileSync(dataPath(...parts), 'utf8')) as T;
}

export class MockEnv implements ToolEnv {
  readonly id = 'mock';
  readonly description = "tau2's mock task-manager domain (10 tasks): contract tests for tools, rewards and the parser";
  readonly track = 'scratch' as const;
  private readonly specs: ToolSpec[];
  private readonly data = new Map<string, MockTaskData>();
  private readonly taskList: Task[] = [];

  constructor() {
    this.specs = loadTau2ToolSpecs('mock', { userTools: true });
    const base: Db = {
      ...readJson<Db>('tau2-bench', 'domains', 'mock', 'db.json'),
      ...readJson<Db>('tau2-bench', 'domains', 'mock', 'user_db.json'),
    };
    for (const raw of readJson<RawTau2Task[]>('tau2-bench', 'domains', 'mock', 'tasks.json')) this.addTask(raw, base);
  }

  private addTask(raw: RawTau2Task, base: Db): void {
    const criteria = criteriaOf(raw);
    const { db, history } = this.initialState(raw, base);
    const initialDb = deepFreeze(db);
    const goldCalls: ToolCall[] = criteria.actions.map((a) => ({ name: a.name, arguments: a.arguments }));
    const goldDb = forkDb(initialDb);
    for (const c of goldCalls) executeCall(MOCK_TOOLS, this.specs, goldDb, c);
    const expertCalls = [...goldCalls, ...this.impliedCalls(raw, goldDb)];
    const instruction = raw.ticket ?? (typeof raw.user_scenario?.instructions === 'string' ? raw.user_scenario.instructions : raw.id);
    const compareOf = new Map(criteria.actions.map((a, i) => [i, a.compareArgs]));
    const checklistCalls = expertCalls.map((c, i) => ({ ...c, ...(compareOf.get(i) ? { compareArgs: compareOf.get(i) } : {}) }));
    const task: Task = {
      id: raw.id,
      env: this.id,
      split: 'heldout',
      instruction,
      gold: { calls: expertCalls, answer: this.expertAnswer(criteria) },
      checklist: tau2Checklist(checklistCalls, criteria, WRITE_TOOLS),
      maxTurns: Math.max(8, 2 * (expertCalls.length + 1)),
      meta: { rewardBasis: criteria.rewardBasis as JsonValue },
    };
    this.taskList.push(task);
    this.data.set(raw.id, { raw, criteria, initialDb, expectedHash: dbHash(agentState(goldDb)), expertCalls, history });
  }

  /** Apply initialization data, initialization actions and the message history's tool calls. */
  private initialState(raw: RawTau2Task, base: Db): { db: Db; history: string } {
    const db = structuredClone(base) as Db;
    const init = raw.initial_state ?? {};
    if (init.initialization_data?.agent_data) deepMerge(db as JsonObject, init.initialization_data.agent_data);
    if (init.initialization_data?.user_data) deepMerge(db as JsonObject, init.initialization_data.user_data);
    for (const a of init.initialization_actions ?? []) executeInit(db, a.func_name, a.arguments);
    const lines: string[] = [];
    for (const m of init.message_history ?? []) {
      for (const c of m.tool_calls ?? []) {
        const out = executeInit(db, c.name, c.arguments);
        lines.push(`assistant called ${c.name}(${JSON.stringify(c.arguments)}) -> ${out}`);
      }
      if (m.content && m.role !== 'tool') lines.push(`${m.role}: ${m.content}`);
    }
    return { db, history: lines.length ? `Conversation so far:\n${lines.join('\n')}` : '' };
  }

  /** Calls the env assertions need that the gold actions do not already make true. */
  private impliedCalls(raw: RawTau2Task, goldDb: Db): ToolCall[] {
    const calls: ToolCall[] = [];
    for (const a of raw.evaluation_criteria?.env_assertions ?? []) {
      const holds = MOCK_ASSERTIONS[a.func_name]?.(goldDb, a.arguments) === (a.assert_value ?? true);
      if (holds) continue;
      if (a.func_name === 'assert_task_status')
        calls.push({ name: 'update_task_status', arguments: { task_id: a.arguments.task_id, status: a.arguments.expected_status } });
      if (a.func_name === 'assert_notification_status' && a.arguments.expected_status === 'read') {
        calls.push({ name: 'dismiss_notification', arguments: { notification_id: a.arguments.notification_id } });
      }
    }
    return calls;
  }

  private expertAnswer(criteria: Tau2Criteria): string {
    return criteria.communicate.length ? criteria.communicate.join('. ') : 'Done.';
  }

  tools(): ToolSpec[] {
    return this.specs;
  }

  tasks(split: Split): TaskRef[] {
    if (split === 'ood') return [];
    return this.taskList.map((t) => ({ id: t.id, split, instruction: t.instruction }));
  }

  task(id: string): Task {
    const t = this.taskList.find((x) => x.id === id);
    if (!t) throw new Error(`mock has no task '${id}'`);
    return t;
  }

  private dataOf(task: Task): MockTaskData {
    const d = this.data.get(task.id);
    if (!d) throw new Error(`mock has no task '${task.id}'`);
    return d;
  }

  async reset(task: Task, _seed = 0): Promise<Episode> {
    const d = this.dataOf(task);
    const db = forkDb(d.initialDb);
    return new ToolEpisode(task, d.history, {
      execute: (call) => executeCall(MOCK_TOOLS, this.specs, db, call),
      check: (transcript) =>
        tau2Check({
          criteria: d.criteria,
          finalDb: agentState(db),
          expectedHash: d.expectedHash,
          transcript,
          envAssertions: (d.raw.evaluation_criteria?.env_assertions ?? []).map((a) => {
            const want = a.assert_value ?? true;
            const got = MOCK_ASSERTIONS[a.func_name]?.(db, a.arguments);
            return {
              name: a.func_name,
              passed: got === want,
              ...(got === want ? {} : { detail: `${a.func_name}(${JSON.stringify(a.arguments)}) is ${got}, expected ${want}` }),
            };
          }),
        }),
    });
  }

  expert(task: Task): ExpertPolicy {
    const d = this.dataOf(task);
    return replayExpert(d.expertCalls, task.gold.answer ?? 'Done.');
  }

  /** The hash the DB check expects for a task (agent tables after replaying its gold actions). */
  expectedHash(taskId: string): string {
    return this.dataOf(this.task(taskId)).expectedHash;
  }
}

function executeInit(db: Db, name: string, args: JsonObject): string {
  const fn = MOCK_INIT_FUNCTIONS[name];
  if (!fn) throw new Error(`mock task uses unknown initialization function '${name}'`);
  return JSON.stringify(fn(db, args));
}

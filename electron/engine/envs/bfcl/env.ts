/**
 * `bfcl` (pretrained track): BFCL v4 single-turn function calling. Each task brings its own
 * functions (`task.tools`); the episode is one turn — the calls the model makes (or none) — and
 * the end-state check is the BFCL verdict from `checker.ts`.
 */
import { dataPath } from '../data-dir';
import { parseAction } from '../parser';
import { replayExpert } from '../household/expert';
import { validateToolArguments } from '../schema-validate';
import type { Action, ChecklistItem, EnvCheck, Episode, EpisodeCost, ExpertPolicy, JsonValue, Split, StepResult, Task, TaskRef, ToolCall, ToolEnv, ToolSpec } from '../types';
import { checkBfcl, oracleCalls } from './checker';
import { BFCL_SPLIT_CATEGORIES, isIrrelevance, loadCategory, type BfclCategory, type BfclFunction, type BfclItem, type GroundTruthCall } from './data';
import { toToolSpec } from './tools';

export interface BfclOptions {
  /** The BFCL `data/` folder (question files plus `possible_answer/`); default `<data>/bfcl/data`. */
  dataDir?: string;
}

function isPrimitive(v: JsonValue): boolean {
  return v === null || typeof v !== 'object';
}

/**
 * Checklist args: only parameters with a single allowed value that the shared checklist can
 * compare exactly (primitives and flat lists). The BFCL verdict itself is the finalCheck.
 */
function exactArgs(call: GroundTruthCall): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const [param, allowed] of Object.entries(call.params)) {
    if (allowed.length !== 1 || allowed[0] === '') continue;
    const v = allowed[0];
    if (isPrimitive(v) || (Array.isArray(v) && v.every(isPrimitive))) out[param] = v;
  }
  return out;
}

function checklistFor(item: BfclItem): ChecklistItem[] {
  if (isIrrelevance(item.category)) {
    return item.functions.map((f) => ({ kind: 'no-call', weight: 1, name: f.name, description: `did not call ${f.name}` }));
  }
  return item.groundTruth.map((call) => ({ kind: 'call', weight: 1, name: call.name, args: exactArgs(call) }));
}

function instructionOf(item: BfclItem): string {
  return item.messages.map((m) => m.content).join('\n\n');
}

export function bfclTask(item: BfclItem, split: Split): Task {
  return {
    id: `bfcl-${item.id}`,
    env: 'bfcl',
    split,
    instruction: instructionOf(item),
    gold: { calls: oracleCalls(item.groundTruth, item.functions), answer: null },
    checklist: checklistFor(item),
    maxTurns: 1,
    tools: item.functions.map(toToolSpec),
    meta: {
      category: item.category,
      functions: item.functions as unknown as JsonValue,
      groundTruth: item.groundTruth as unknown as JsonValue,
    },
  };
}

/**
 * Why an item cannot be scored fairly, or null. A few BFCL items list an answer that breaks
 * their own function doc (a value outside the declared enum, a string where the doc says array,
 * a required parameter the answer leaves out); no call can satisfy both the tool schema a model
 * is held to and the answer, so these items are skipped and listed in `BfclEnv.skipped`.
 */
function inconsistency(task: Task, item: BfclItem): string | null {
  for (const call of task.gold.calls) {
    const spec = task.tools?.find((t) => t.name === call.name);
    if (!spec) return `the answer calls ${call.name}, which the item does not offer`;
    const problem = validateToolArguments(spec, call.arguments);
    if (problem) return `the answer breaks the function doc: ${problem}`;
  }
  const verdict = checkBfcl(task.gold.calls, item.groundTruth, item.functions);
  return verdict.passed ? null : `no answer value fits the function doc: ${verdict.detail}`;
}

class BfclEpisode implements Episode {
  readonly initialObservation = '';
  private calls: ToolCall[] | null = null;
  private invalid: { error: string; raw: string } | null = null;
  private finished = false;

  constructor(readonly task: Task) {}

  async step(action: Action): Promise<StepResult> {
    if (this.finished) return { observation: 'The episode is over; no further actions are accepted.', done: true };
    this.finished = true;
    if (action.kind === 'invalid') {
      this.invalid = { error: action.error, raw: action.raw };
      return { observation: action.error, done: true };
    }
    this.calls = action.kind === 'calls' ? action.calls : [];
    return { observation: `Recorded ${this.calls.length} function call(s).`, done: true };
  }

  async finalCheck(): Promise<EnvCheck> {
    const name = `bfcl ${String(this.task.meta?.category)}`;
    const expected = (this.task.meta?.groundTruth ?? []) as unknown as GroundTruthCall[];
    const functions = (this.task.meta?.functions ?? []) as unknown as BfclFunction[];
    let calls = this.calls ?? [];
    if (this.invalid !== null) {
      // BFCL judges what its decoder makes of the output, with no schema check: calls that parse
      // but break a tool schema are still checked; output that decodes to no call at all is "no
      // call", which is right for irrelevance items and wrong elsewhere (eval_runner's
      // relevance/irrelevance and AST paths).
      const decoded = parseAction(this.invalid.raw);
      if (decoded.kind === 'calls') calls = decoded.calls;
      else if (expected.length > 0) return { passed: false, checks: [{ name, passed: false, detail: `the action was not valid: ${this.invalid.error}` }] };
      else calls = [];
    }
    const verdict = checkBfcl(calls, expected, functions);
    return { passed: verdict.passed, checks: [{ name, passed: verdict.passed, detail: verdict.detail }] };
  }

  cost(): EpisodeCost {
    return { envCalls: this.calls?.length ?? 0, envWallMs: 0 };
  }

  async close(): Promise<void> {
    this.finished = true;
  }
}

export class BfclEnv implements ToolEnv {
  readonly id = 'bfcl';
  readonly track = 'pretrained' as const;
  readonly description = 'BFCL v4 single-turn function calling: live_* items to train on, the non-live python categories held out.';
  private readonly cache = new Map<Split, Task[]>();
  private readonly byId = new Map<string, Task>();
  /** Items left out because their own possible answer breaks their function doc (see `inconsistency`). */
  readonly skipped: Array<{ id: string; reason: string }> = [];

  constructor(private readonly opts: BfclOptions = {}) {}

  /** No environment-wide tools: every task carries its own functions in `task.tools`. */
  tools(): ToolSpec[] {
    return [];
  }

  private all(split: Split): Task[] {
    let tasks = this.cache.get(split);
    if (!tasks) {
      const dir = this.opts.dataDir ?? dataPath('bfcl', 'data');
      // Four live_irrelevance items offer no function at all: nothing to decide, nothing to score; skipped.
      const items = BFCL_SPLIT_CATEGORIES[split].flatMap((c: BfclCategory) => loadCategory(dir, c)).filter((item) => item.functions.length > 0);
      tasks = [];
      for (const item of items) {
        const task = bfclTask(item, split);
        const problem = inconsistency(task, item);
        if (problem) this.skipped.push({ id: task.id, reason: problem });
        else tasks.push(task);
      }
      for (const t of tasks) this.byId.set(t.id, t);
      this.cache.set(split, tasks);
    }
    return tasks;
  }

  tasks(split: Split): TaskRef[] {
    return this.all(split).map((t) => ({ id: t.id, split: t.split, instruction: t.instruction }));
  }

  task(id: string): Task {
    if (!this.byId.has(id)) for (const split of ['train', 'heldout', 'ood'] as const) this.all(split);
    const task = this.byId.get(id);
    if (!task) throw new Error(`bfcl: no task "${id}"`);
    return task;
  }

  async reset(task: Task, _seed: number): Promise<Episode> {
    if (task.env !== this.id || !task.meta?.groundTruth || !task.meta?.functions) {
      throw new Error(`bfcl: task "${task.id}" is not a BFCL task (env ${task.env})`);
    }
    return new BfclEpisode(task);
  }

  /** The oracle: every expected call at once (first allowed value per parameter), or no call for irrelevance. */
  expert(task: Task): ExpertPolicy {
    return replayExpert(task, { callsPerTurn: Math.max(1, task.gold.calls.length) });
  }
}

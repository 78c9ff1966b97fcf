/**
 * Reading tau2 task files: the evaluation criteria, the initial state, and the checklist a task
 * gets from its gold reference.
 */
import type { ChecklistItem, JsonValue, ToolCall } from '../types';
import { parseRewardBasis, type GoldAction, type RewardPart, type Tau2Criteria } from './evaluate';
import type { JsonObject } from './db';

export interface RawTau2Action {
  name: string;
  arguments: JsonObject;
  compare_args?: string[] | null;
  env_type?: string;
  func_name?: string;
}

export interface RawTau2Task {
  id: string;
  ticket?: string;
  user_scenario?: {
    instructions?: string | { reason_for_call?: string; known_info?: string | null; unknown_info?: string | null; task_instructions?: string };
  };
  initial_state?: {
    initialization_data?: { agent_data?: JsonObject | null; user_data?: JsonObject | null } | null;
    initialization_actions?: Array<{ env_type: string; func_name: string; arguments: JsonObject }> | null;
    message_history?: Array<{ role: string; content?: string | null; tool_calls?: Array<{ name: string; arguments: JsonObject }> | null }> | null;
  } | null;
  evaluation_criteria?: {
    actions?: RawTau2Action[] | null;
    env_assertions?: Array<{ env_type: string; func_name: string; arguments: JsonObject; assert_value?: boolean }> | null;
    communicate_info?: string[] | null;
    nl_assertions?: string[] | null;
    reward_basis?: string[] | null;
  } | null;
}

/**
 * Does the task state its requirements only in words? No gold action, env assertion, string to
 * communicate or reward basis: just NL assertions (tau2's mock `create_task_1_nl_eval`: "The task is
 * created successfully").
 */
function judgedInWordsOnly(ec: NonNullable<RawTau2Task['evaluation_criteria']>): boolean {
  return !!ec.nl_assertions?.length && !ec.actions?.length && !ec.env_assertions?.length && !ec.communicate_info?.length && !ec.reward_basis;
}

export function criteriaOf(raw: RawTau2Task): Tau2Criteria {
  const ec = raw.evaluation_criteria ?? {};
  // Such a task is judged by its assertions, so they are its reward basis. tau2 would apply its default
  // basis (DB, COMMUNICATE) to an empty gold instead: the untouched DB passes, so doing nothing — not
  // even the call the ticket asks for — scores 1 there. Here it is unchecked and never a success.
  const rewardBasis: RewardPart[] = judgedInWordsOnly(ec) ? ['NL_ASSERTION'] : parseRewardBasis(ec.reward_basis);
  return {
    rewardBasis,
    actions: (ec.actions ?? []).map((a): GoldAction => ({
      name: a.name,
      arguments: a.arguments,
      ...(Array.isArray(a.compare_args) ? { compareArgs: a.compare_args } : {}),
    })),
    // tau2 only scores communicate_info when COMMUNICATE is in the reward basis; elsewhere the
    // strings are not part of the task (36 retail tasks list some under a DB + NL_ASSERTION basis).
    communicate: rewardBasis.includes('COMMUNICATE') ? (ec.communicate_info ?? []) : [],
    nlAssertions: ec.nl_assertions ?? [],
  };
}

/** Merge `patch` into `target` the way tau2 updates a DB: objects recursively, anything else replaced. */
export function deepMerge(target: JsonObject, patch: JsonObject): void {
  for (const [k, v] of Object.entries(patch)) {
    const cur = target[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur))
      deepMerge(cur as JsonObject, v as JsonObject);
    else target[k] = structuredClone(v);
  }
}

/**
 * A tau2 task's checklist: each gold call (compared on `compare_args` when given), each string to
 * communicate, and each NL assertion of the reward basis as an unchecked `nl-assertion` item (outside
 * the basis tau2 does not score them, and neither do we). A task with no call or string gets "no write
 * call" items where its basis has the DB check (the gold end state is then the initial one); without
 * one, nothing checkable is left, and the checklist scores as unchecked rather than 1 for doing nothing.
 */
export function tau2Checklist(
  goldCalls: Array<ToolCall & { compareArgs?: string[] }>,
  criteria: Pick<Tau2Criteria, 'communicate' | 'rewardBasis' | 'nlAssertions'>,
  writeTools: string[],
): ChecklistItem[] {
  const items: ChecklistItem[] = goldCalls.map((c) => {
    const keys = c.compareArgs ?? Object.keys(c.arguments);
    const args: { [k: string]: JsonValue } = {};
    for (const k of keys) if (k in c.arguments) args[k] = c.arguments[k];
    return { kind: 'call', weight: 1, name: c.name, ...(keys.length ? { args } : {}) };
  });
  for (const text of criteria.communicate) items.push({ kind: 'communicate', weight: 1, text });
  if (items.length === 0 && criteria.rewardBasis.includes('DB')) for (const name of writeTools) items.push({ kind: 'no-call', weight: 1, name });
  if (criteria.rewardBasis.includes('NL_ASSERTION')) for (const text of criteria.nlAssertions) items.push({ kind: 'nl-assertion', weight: 0, text });
  return items;
}

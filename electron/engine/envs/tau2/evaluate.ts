/**
 * tau2's reward rules (src/tau2/evaluator/) as end-state checks. A task's reward is the product
 * of its `reward_basis` parts, so the episode passes when every part passes:
 * - DB: the agent's end-state hash equals the hash after replaying the gold actions on a fresh copy;
 * - COMMUNICATE: each required string appears in some agent message (case-insensitive, commas removed);
 * - ACTION: each gold action was called with equal arguments (only `compare_args`, when given);
 * - ENV_ASSERTION: domain assertions on the end state hold;
 * - NL_ASSERTION: needs an LLM judge, which we do not run. As tau2's NLAssertionsEvaluator, a task
 *   with none passes this part; a task with some is UNCHECKED: reported as a check that is
 *   `skipped` and not `passed`, and the episode is not counted as passed (its reward is unknown).
 *   Assertions outside the reward basis are listed as skipped, passed, and do not count (as in tau2).
 */
import { communicated } from '../checklist';
import type { EnvCheck, EpisodeTranscript, JsonValue, ToolCall } from '../types';
import { canonicalJson, dbHash, forkDb, type Db } from './db';
import { executeCall, type ToolImpl } from './tools';
import type { ToolSpec } from '../types';

export type RewardPart = 'DB' | 'COMMUNICATE' | 'ACTION' | 'ENV_ASSERTION' | 'NL_ASSERTION';
export const DEFAULT_REWARD_BASIS: RewardPart[] = ['DB', 'COMMUNICATE'];

export interface GoldAction {
  name: string;
  arguments: { [key: string]: JsonValue };
  /** Argument names compared by ACTION; absent = all of the gold call's arguments. */
  compareArgs?: string[];
}

export interface Tau2Criteria {
  rewardBasis: RewardPart[];
  actions: GoldAction[];
  communicate: string[];
  nlAssertions: string[];
}

export interface AssertionOutcome {
  name: string;
  passed: boolean;
  detail?: string;
}

/** Replay calls on a fork of `base`; errors are outcomes, as in a real episode. Returns the end state. */
export function replayCalls(base: Db, impls: Record<string, ToolImpl>, specs: readonly ToolSpec[], calls: readonly ToolCall[]): Db {
  const db = forkDb(base);
  for (const call of calls) executeCall(impls, specs, db, call);
  return db;
}

export function actionMatched(gold: GoldAction, calls: readonly ToolCall[]): boolean {
  const keys = gold.compareArgs ?? Object.keys(gold.arguments);
  return calls.some((c) => c.name === gold.name && keys.every((k) => canonicalJson(c.arguments[k]) === canonicalJson(gold.arguments[k])));
}

export function tau2Check(args: {
  criteria: Tau2Criteria;
  finalDb: Db;
  expectedHash: string;
  transcript: EpisodeTranscript;
  envAssertions?: AssertionOutcome[];
}): EnvCheck {
  const { criteria, transcript } = args;
  const checks: EnvCheck['checks'] = [];
  for (const part of criteria.rewardBasis) {
    switch (part) {
      case 'DB': {
        const got = dbHash(args.finalDb);
        checks.push({
          name: 'DB',
          passed: got === args.expectedHash,
          detail: got === args.expectedHash ? undefined : `end-state hash ${got.slice(0, 12)} ≠ expected ${args.expectedHash.slice(0, 12)}`,
        });
        break;
      }
      case 'COMMUNICATE': {
        const missing = criteria.communicate.filter((s) => !communicated(transcript.messages, s));
        checks.push({
          name: 'COMMUNICATE',
          passed: missing.length === 0,
          detail: missing.length ? `not said: ${missing.map((m) => JSON.stringify(m)).join(', ')}` : undefined,
        });
        break;
      }
      case 'ACTION': {
        const missing = criteria.actions.filter((a) => !actionMatched(a, transcript.calls));
        checks.push({
          name: 'ACTION',
          passed: missing.length === 0,
          detail: missing.length ? `missing: ${missing.map((a) => a.name).join(', ')}` : undefined,
        });
        break;
      }
      case 'ENV_ASSERTION': {
        const failed = (args.envAssertions ?? []).filter((a) => !a.passed);
        checks.push({
          name: 'ENV_ASSERTION',
          passed: failed.length === 0,
          detail: failed.length ? failed.map((f) => f.detail ?? f.name).join('; ') : undefined,
        });
        break;
      }
      case 'NL_ASSERTION': {
        const n = criteria.nlAssertions.length;
        checks.push(
          n === 0
            ? { name: 'NL_ASSERTION', passed: true, detail: 'no NL assertions to judge' }
            : { name: 'NL_ASSERTION', passed: false, skipped: true, detail: `unchecked: ${n} NL assertion(s) need an LLM judge, so the reward is unknown` },
        );
        break;
      }
    }
  }
  if (!criteria.rewardBasis.includes('NL_ASSERTION') && criteria.nlAssertions.length > 0) {
    checks.push({
      name: 'NL_ASSERTION',
      passed: true,
      skipped: true,
      detail: `not in the reward basis: ${criteria.nlAssertions.length} NL assertion(s) not judged and not counted`,
    });
  }
  for (const c of checks) if (c.detail === undefined) delete c.detail;
  // An unchecked part (skipped, not passed) keeps the episode from passing: never assumed true.
  return { passed: checks.every((c) => c.passed), checks };
}

/** Parse a task's reward_basis, defaulting as tau2 does. */
export function parseRewardBasis(raw: unknown): RewardPart[] {
  const known: RewardPart[] = ['DB', 'COMMUNICATE', 'ACTION', 'ENV_ASSERTION', 'NL_ASSERTION'];
  if (!Array.isArray(raw)) return [...DEFAULT_REWARD_BASIS];
  return raw.filter((x): x is RewardPart => known.includes(x as RewardPart));
}

export { uncheckedParts } from '../oracle';

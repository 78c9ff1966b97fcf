/**
 * World-model fidelity (algorithms.md "Evaluation"): replay a rehearsed rollout's actions in the real
 * environment and compare each imagined observation with what the world actually said.
 */
import type { Fidelity, RealityCheckSummary, TurnRole } from '../../contract';
import { parseAction } from '../envs/parser';
import type { Task, ToolEnv } from '../envs/types';
import { charNgramCosine, jsonF1, tokenF1 } from './rwml';

export interface RealityCheck {
  /** Index of the rehearsed turn in the rollout. */
  index: number;
  realText: string;
  fidelity: Fidelity;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Exact (after trimming), field F1 wherever the real observation is JSON, token F1 wherever it is not,
 * and character n-gram similarity. An imagined observation that is not JSON where the world answered
 * JSON recovered no field: F1 0, not left out (leaving it out made the mean read only the rehearsals
 * that got the shape right).
 */
export function observationFidelity(predicted: string, real: string): Fidelity {
  const json = isJson(real);
  return {
    exact: predicted.trim() === real.trim(),
    jsonF1: json ? (isJson(predicted) ? jsonF1(predicted, real) : 0) : null,
    tokenF1: json ? null : tokenF1(predicted, real),
    similarity: charNgramCosine(predicted, real),
  };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const present = (xs: Array<number | null | undefined>) => xs.filter((x): x is number => typeof x === 'number');

/**
 * The figures over one reality check: every compared observation is in the exact rate and the
 * similarity, and in exactly one F1 — the field F1 where the world answered JSON, the token F1 where
 * it did not — with the count of each, so no observation drops out of the F1s unseen.
 */
export function summariseFidelity(checks: ReadonlyArray<{ fidelity: Fidelity }>): RealityCheckSummary {
  const json = present(checks.map((c) => c.fidelity.jsonF1));
  const text = present(checks.map((c) => (c.fidelity.jsonF1 === null ? c.fidelity.tokenF1 : null)));
  return {
    compared: checks.length,
    exactRate: mean(checks.map((c) => (c.fidelity.exact ? 1 : 0))),
    meanSimilarity: mean(checks.map((c) => c.fidelity.similarity)),
    meanJsonF1: json.length ? mean(json) : null,
    jsonCompared: json.length,
    meanTokenF1: text.length ? mean(text) : null,
    textCompared: text.length,
    envCalls: checks.length,
  };
}

/**
 * Replays the act turns in a fresh real episode; every rehearsed observation is compared with the real
 * one its act produced. Stops at an answer or when the env ends the episode.
 */
export async function realityCheck(
  env: ToolEnv,
  task: Task,
  turns: ReadonlyArray<{ index: number; role: TurnRole; text: string }>,
  seed = 0,
): Promise<RealityCheck[]> {
  const tools = task.tools ?? env.tools();
  const episode = await env.reset(task, seed);
  const out: RealityCheck[] = [];
  try {
    for (let i = 0; i < turns.length; i++) {
      if (turns[i].role !== 'act') continue;
      const action = parseAction(turns[i].text, tools);
      if (action.kind === 'answer') break;
      const { observation, done } = await episode.step(action);
      const next = turns[i + 1];
      if (next?.role === 'rehearse') out.push({ index: next.index, realText: observation, fidelity: observationFidelity(next.text, observation) });
      if (done) break;
    }
    return out;
  } finally {
    await episode.close();
  }
}

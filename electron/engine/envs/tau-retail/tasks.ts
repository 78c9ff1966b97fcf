/**
 * Task sources of the pretrained track's retail env, in ticket (solo) mode: the agent gets the
 * customer's request up front and acts with the tools; there is no user simulator.
 * - train: tau-bench v1 retail train tasks, minus those whose gold actions fail under tau2's
 *   stricter tool rules (found by replaying them here, not read from a list);
 * - heldout: tau2 retail test split; ood: tau2 retail train split. 108 of tau2's 114 retail
 *   tasks are v1 *test* tasks, so none of them may ever be trained on.
 */
import { readFileSync } from 'node:fs';
import { dataPath } from '../data-dir';
import type { JsonObject } from '../tau2/db';
import { criteriaOf, type RawTau2Task } from '../tau2/task-file';
import type { RewardPart } from '../tau2/evaluate';
import type { Split, ToolCall } from '../types';

export interface TicketTask {
  id: string;
  split: Split;
  ticket: string;
  goldCalls: ToolCall[];
  /** Strings the agent must say (v1 `outputs`, tau2 `communicate_info`). */
  communicate: string[];
  rewardBasis: RewardPart[];
  nlAssertions: string[];
}

interface V1Task {
  user_id: string;
  instruction: string;
  actions: Array<{ name: string; kwargs: JsonObject }>;
  outputs: string[];
}

const readJson = <T>(...parts: string[]): T => JSON.parse(readFileSync(dataPath(...parts), 'utf8')) as T;

const TICKET_PREFIX = 'Customer ticket (no follow-up questions are possible; act with the tools, then answer):';

export function loadV1Train(): TicketTask[] {
  return readJson<V1Task[]>('tau-bench', 'retail', 'tasks_train.json').map((t, i) => ({
    id: `v1-train-${i}`,
    split: 'train',
    ticket: `${TICKET_PREFIX}\n${t.instruction.trim()}`,
    goldCalls: t.actions.map((a) => ({ name: a.name, arguments: a.kwargs })),
    communicate: t.outputs,
    // tau-bench v1's reward: DB hash, then every output said.
    rewardBasis: ['DB', 'COMMUNICATE'],
    nlAssertions: [],
  }));
}

function tau2Ticket(raw: RawTau2Task): string {
  const ins = raw.user_scenario?.instructions;
  if (typeof ins === 'string') return `${TICKET_PREFIX}\n${ins}`;
  const parts = [ins?.known_info, ins?.reason_for_call, ins?.unknown_info, ins?.task_instructions].filter(
    (x): x is string => !!x && x.trim().length > 0,
  );
  return `${TICKET_PREFIX}\n${parts.join('\n')}`;
}

export function loadTau2Retail(): TicketTask[] {
  const split = readJson<{ train: string[]; test: string[] }>('tau2-bench', 'domains', 'retail', 'split_tasks.json');
  const splitOf = new Map<string, Split>([...split.test.map((id) => [id, 'heldout'] as const), ...split.train.map((id) => [id, 'ood'] as const)]);
  return readJson<RawTau2Task[]>('tau2-bench', 'domains', 'retail', 'tasks.json')
    .filter((raw) => splitOf.has(raw.id))
    .map((raw) => {
      const c = criteriaOf(raw);
      return {
        id: `tau2-${raw.id}`,
        split: splitOf.get(raw.id) as Split,
        ticket: tau2Ticket(raw),
        goldCalls: c.actions.map((a) => ({ name: a.name, arguments: a.arguments })),
        communicate: c.communicate,
        rewardBasis: c.rewardBasis,
        nlAssertions: c.nlAssertions,
      };
    });
}

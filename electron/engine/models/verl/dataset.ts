// The task set of a verl export as verl's RL dataset (verl/utils/dataset/rl_dataset.py): one row per
// task with the chat prompt our rollouts open with (system = env description + tool schemas in the run's
// `toolSchemas` form, user = instruction), the agent loop to run it, and the ids the reward needs (env,
// task id, seed) in `extra_info`, which the agent loop passes to `start_task`.

import { parquetWriteBuffer } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet-writer';
import { systemText, type ToolSchemaMode } from '../../algorithms/layout';
import type { TaskRef, ToolSpec } from '../../envs/types';
import { AGENT_LOOP_NAME } from './trainer-config';

export interface VerlRow {
  data_source: string;
  agent_name: string;
  prompt: { role: 'system' | 'user'; content: string }[];
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: { split: string; index: number; env: string; task_id: string; seed: number };
}

export function datasetRows(env: { id: string; description: string; tools: readonly ToolSpec[] }, tasks: readonly TaskRef[], opts: { toolSchemas: ToolSchemaMode; seed: number }): VerlRow[] {
  const system = systemText(env.description, env.tools, opts.toolSchemas);
  return tasks.map((t, index) => ({
    data_source: `envace/${env.id}`,
    agent_name: AGENT_LOOP_NAME,
    prompt: [
      { role: 'system', content: system },
      { role: 'user', content: t.instruction },
    ],
    ability: 'agent',
    // The reward comes from the env's `finish`; the task id is what it must belong to.
    reward_model: { style: 'envace-finish', ground_truth: t.id },
    extra_info: { split: t.split, index, env: env.id, task_id: t.id, seed: opts.seed },
  }));
}

const text = (name: string, repetition: 'REQUIRED' | 'OPTIONAL' = 'OPTIONAL'): SchemaElement => ({
  name,
  type: 'BYTE_ARRAY',
  converted_type: 'UTF8',
  repetition_type: repetition,
});
const int64 = (name: string): SchemaElement => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' });

/** The columns as pandas/pyarrow write them from the same dicts: prompt a LIST of structs, the rest structs. */
const SCHEMA: SchemaElement[] = [
  { name: 'schema', num_children: 6 },
  text('data_source', 'REQUIRED'),
  text('agent_name', 'REQUIRED'),
  { name: 'prompt', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 },
  text('role'),
  text('content'),
  text('ability'),
  { name: 'reward_model', repetition_type: 'OPTIONAL', num_children: 2 },
  text('style'),
  text('ground_truth'),
  { name: 'extra_info', repetition_type: 'OPTIONAL', num_children: 5 },
  text('split'),
  int64('index'),
  text('env'),
  text('task_id'),
  int64('seed'),
];

export function parquetOf(rows: readonly VerlRow[]): Uint8Array {
  const buffer = parquetWriteBuffer({
    schema: SCHEMA,
    columnData: [
      { name: 'data_source', data: rows.map((r) => r.data_source) },
      { name: 'agent_name', data: rows.map((r) => r.agent_name) },
      { name: 'prompt', data: rows.map((r) => r.prompt) },
      { name: 'ability', data: rows.map((r) => r.ability) },
      { name: 'reward_model', data: rows.map((r) => r.reward_model) },
      // INT64 columns take BigInts.
      { name: 'extra_info', data: rows.map((r) => ({ ...r.extra_info, index: BigInt(r.extra_info.index), seed: BigInt(r.extra_info.seed) })) },
    ],
    createdBy: 'envace-workbench verl export',
  });
  return new Uint8Array(buffer);
}

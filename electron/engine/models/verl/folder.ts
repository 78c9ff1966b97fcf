// What a verl export folder holds (its file names) and what it is written from (the run besides its
// weights): the piece export.ts and readme.ts both read, kept below them so neither imports the other.

import type { Algo, RunConfig } from '../../../contract';
import type { TaskRef, ToolSpec } from '../../envs/types';
import { PYTHON_MODULE } from './python';

export const VERL_FILES = {
  model: 'model',
  train: 'data/train.parquet',
  validation: 'data/validation.parquet',
  trainer: 'envace_grpo.yaml',
  tools: 'tool_config.yaml',
  servers: 'mcp_servers.json',
  agentLoops: 'agent_loops.yaml',
  python: `${PYTHON_MODULE}.py`,
  readme: 'README.md',
} as const;

/** Everything about the run a verl export needs besides its weights. */
export interface VerlRun {
  run: { id: string; name: string; algo: Algo; step: number; config: RunConfig };
  env: { id: string; description: string; tools: ToolSpec[] };
  /** As `envace mcp serve --env ID` lists them (train rows, held-out rows for validation). */
  tasks: { train: TaskRef[]; heldout: TaskRef[] };
  /** The data home `envace mcp serve` should read (registered MCP envs live there). */
  home?: string;
  /** The run's world (envOptions of its config): `envace mcp serve` builds the same one. */
  envOptions?: Record<string, unknown>;
}

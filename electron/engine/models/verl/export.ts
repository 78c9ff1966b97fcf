// A run carried to verl (architecture.md "Scale-out"): a folder verl's multi-turn agent loop can train
// from — the task set as verl's RL dataset, the tool config pointing at `envace mcp serve` for the
// run's env, a GRPO trainer config mirroring the run's knobs, the reward function (Python), the README
// with the launch commands. The starting weights (model/) are the HF export, written by models/export.ts.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../../../contract';
import type { ToolSpec } from '../../envs/types';
import { ExportError } from '../out-dir';
import { datasetRows, parquetOf, type VerlRow } from './dataset';
import { VERL_FILES, type VerlRun } from './folder';
import { ENVACE_VERL_PY, PYTHON_MODULE } from './python';
import { verlReadme } from './readme';
import { AGENT_LOOP_NAME, grpoTrainerConfig, type TrainerLengths, type TrainerPaths } from './trainer-config';
import { toYaml } from './yaml';

// The folder's file names and the run facts it is written from live in folder.ts (readme.ts reads them too).
export { VERL_FILES, type VerlRun };

/** The verl commit whose config schema, dataset schema and MCP tool config this export was checked against. */
export const VERL_COMMIT = 'b178a3cd56f58b2d502255daba591e92833930a7';

/** The tokenizer calls the lengths need (TextTokenizer has them). */
export interface LengthTokenizer {
  encode(text: string, opts?: { parseSpecial?: boolean }): number[];
}

/** Markers around each message (`<|role|>` … `<|end|>`) and the generation prompt's `<|act|>`. */
const MARKERS = 2;

export function verlLengths(rows: readonly VerlRow[], tok: LengthTokenizer, c: RunConfig, maxSeqLen: number): TrainerLengths {
  const r = c.rollout;
  const longest = Math.max(0, ...rows.map((row) => row.prompt.reduce((n, m) => n + tok.encode(m.content, { parseSpecial: false }).length + MARKERS, 0)));
  // As envace rollouts refuse a prompt that leaves no room for one act, so does the export.
  if (longest + 1 + r.maxTokensPerTurn > maxSeqLen)
    throw new ExportError('BAD_INPUT', `a prompt of this task set is ${longest} tokens; with ${r.maxTokensPerTurn} for an act it passes the model's context of ${maxSeqLen}`);
  // Prompt and response never pass the model's context (vLLM enforces it, envace rollouts stop there).
  // The trajectory comes first; a first observation (household-style envs, given by start_task at run
  // time and placed in the prompt) gets room only where the trajectory leaves some.
  const need = r.maxTurns * (r.maxTokensPerTurn + MARKERS + r.maxObservationTokens + MARKERS);
  const room = maxSeqLen - (longest + 1);
  const firstObservation = Math.min(r.maxObservationTokens + MARKERS, Math.max(0, room - need));
  const maxPromptLength = longest + 1 + firstObservation;
  return {
    maxPromptLength,
    maxResponseLength: Math.min(need, maxSeqLen - maxPromptLength),
    firstObservationTokens: firstObservation,
    maxToolResponseChars: r.maxObservationTokens * 4,
  };
}

/**
 * Parameters verl cannot load: its MCP tools are validated by pydantic models (verl/tools/schemas.py)
 * that want a string `type` on every property and string enums; one bad schema stops the whole loop.
 */
export function verlToolProblems(tools: readonly ToolSpec[]): string[] {
  return tools.flatMap((t) => {
    const props = (t.parameters.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown } | null>;
    return Object.entries(props).flatMap(([name, p]) => {
      if (typeof p?.type !== 'string') return [`${t.name}.${name} has no single type (${JSON.stringify(p?.type ?? null)})`];
      if (p.enum !== undefined && !(Array.isArray(p.enum) && p.enum.every((e) => typeof e === 'string'))) return [`${t.name}.${name} has a non-string enum`];
      return [];
    });
  });
}

export function verlProblem(v: VerlRun): string | null {
  if (v.tasks.train.length === 0) return `environment ${v.env.id} has no train tasks to export`;
  if (v.env.tools.length === 0)
    return `environment ${v.env.id} lists no tools of its own (tasks that bring their own, as BFCL's do, cannot be carried: verl fixes the tool list when its loop starts)`;
  const bad = verlToolProblems(v.env.tools);
  if (bad.length > 0)
    return `verl's tool schema (one string type per parameter, string enums) cannot load ${bad.length} parameter${bad.length === 1 ? '' : 's'} of ${v.env.id}: ${bad.slice(0, 3).join('; ')}`;
  return null;
}

/** Write every file but model/ into `dir`, whose final absolute path is `finalDir` (the configs name it). */
export function writeVerlFiles(dir: string, finalDir: string, v: VerlRun, tok: LengthTokenizer, maxSeqLen: number): void {
  const c = v.run.config;
  const f = VERL_FILES;
  const at = (name: string) => join(finalDir, name);
  const rows = {
    train: datasetRows(v.env, v.tasks.train, { toolSchemas: c.rollout.toolSchemas, seed: c.seed }),
    validation: datasetRows(v.env, v.tasks.heldout.length > 0 ? v.tasks.heldout : v.tasks.train, { toolSchemas: c.rollout.toolSchemas, seed: c.seed }),
  };
  const lengths = verlLengths([...rows.train, ...rows.validation], tok, c, maxSeqLen);
  const paths: TrainerPaths = {
    dir: finalDir,
    trainFile: at(f.train),
    valFile: at(f.validation),
    modelDir: at(f.model),
    toolConfig: at(f.tools),
    agentLoopConfig: at(f.agentLoops),
    rewardFile: at(f.python),
  };
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, f.train), parquetOf(rows.train));
  writeFileSync(join(dir, f.validation), parquetOf(rows.validation));

  const header = (what: string) => `${what}\nWritten by envace export --format verl for run ${v.run.id} (step ${v.run.step}); verl commit ${VERL_COMMIT}.`;
  writeFileSync(join(dir, f.trainer), toYaml(grpoTrainerConfig(c, v.run, rows.train.length, paths, lengths), header('GRPO trainer config: verl ppo_trainer defaults + this run\'s knobs (README.md maps them).')));
  writeFileSync(
    join(dir, f.tools),
    toYaml(
      {
        tools: [
          {
            class_name: 'verl.tools.mcp_base_tool.MCPBaseTool',
            // Our server is local: verl's rate limit (calls per second) must not throttle a batch of episodes.
            config: { type: 'mcp', timeout: 120, rate_limit: 10_000 },
            mcp: {
              mcp_servers_config_path: at(f.servers),
              // The episode tools are taken by the agent loop; the model is offered the env's tools.
              tool_selected_list: ['start_task', 'finish', ...v.env.tools.map((t) => t.name)],
            },
          },
        ],
      },
      header(`verl tool config: the tools of envace mcp serve --env ${v.env.id}.`),
    ),
  );
  const args = ['mcp', 'serve', '--env', v.env.id, '--split', 'train', '--stdio', ...(v.home ? ['--home', v.home] : [])];
  // The world the run trained in (its size, seed, mode): the served tasks must be the parquet's.
  for (const [key, value] of Object.entries(v.envOptions ?? {})) args.push('--env-option', `${key}=${JSON.stringify(value)}`);
  // verl runs a batch's episodes at once in each agent-loop worker, each worker with its own server: the
  // cap (which closes the longest idle episode) must sit above any batch.
  args.push('--max-episodes', '10000');
  writeFileSync(join(dir, f.servers), `${JSON.stringify({ mcpServers: { [`envace-${v.env.id}`]: { command: 'envace', args } } }, null, 2)}\n`);
  writeFileSync(join(dir, f.agentLoops), toYaml([{ name: AGENT_LOOP_NAME, _target_: `${PYTHON_MODULE}.EnvaceToolAgentLoop` }], header('verl agent loops: the one this export adds.')));
  writeFileSync(join(dir, f.python), ENVACE_VERL_PY);
  writeFileSync(join(dir, f.readme), verlReadme(v, finalDir, lengths, VERL_COMMIT));
}

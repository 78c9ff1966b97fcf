/**
 * The tool list a served environment shows an MCP client: the env's own tools, each with an
 * optional `episode_id` argument added to its schema, and the episode tools (start_task, finish,
 * list_tasks). The env's schemas stay as the env wrote them otherwise: one place defines them.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { SPLITS, type JsonValue, type Split, type ToolEnv, type ToolSpec } from '../envs/types';

export const EPISODE_ID = 'episode_id';
export const EPISODE_TOOLS = ['start_task', 'finish', 'list_tasks'] as const;
export type EpisodeToolName = (typeof EPISODE_TOOLS)[number];

export class ServedToolsError extends Error {
  override name = 'ServedToolsError';
}

const EPISODE_ID_SCHEMA = {
  type: 'string',
  description: 'The episode this call belongs to (from start_task); valid from any session until finish. May be left out while this session has exactly one open episode it started.',
};

/** What every client is told once, at initialize: the episode convention in a few lines. */
export function serverInstructions(env: ToolEnv, split: Split): string {
  return [
    `EnvACE environment "${env.id}": ${env.description}`,
    `Call start_task (a task_id, or none for the next ${split} task) to open an episode; it returns the instruction, the first observation and an episode_id.`,
    `Every other tool takes an optional episode_id; leave it out while this session has exactly one episode open. An episode_id stays valid across sessions and reconnects until finish, or until the episode has had no call for a while (the server's idle timeout).`,
    `Call finish (with your final answer, if the task asks for one) to get the reward and the end-state check; that closes the episode.`,
  ].join('\n');
}

function episodeTools(split: Split): Tool[] {
  return [
    {
      name: 'start_task',
      description: `Open an episode: a fresh copy of the world for one task. Returns episode_id, the instruction and the initial observation. Without task_id, the next ${split} task.`,
      inputSchema: {
        type: 'object',
        properties: {
          task_id: { type: 'string', description: 'A task id from list_tasks; leave out for the next task of the served split.' },
          seed: { type: 'integer', description: 'Seed of the episode (default 0).' },
        },
        additionalProperties: false,
      },
    },
    {
      name: 'finish',
      description: 'End an episode: records the final answer (if given), then returns the checklist reward with its per-item results and the environment’s end-state check. The episode is closed.',
      inputSchema: {
        type: 'object',
        properties: {
          [EPISODE_ID]: EPISODE_ID_SCHEMA,
          answer: { type: 'string', description: 'The final answer to the task, if it asks for one.' },
        },
        additionalProperties: false,
      },
    },
    {
      name: 'list_tasks',
      description: `Task ids and instructions of a split (default ${split}).`,
      inputSchema: { type: 'object', properties: { split: { type: 'string', enum: [...SPLITS] } }, additionalProperties: false },
    },
  ];
}

/** One tool of the env (or of a task) with `episode_id` added; refused when a name would clash with ours. */
function withEpisodeId(spec: ToolSpec, owner: string): Tool {
  if ((EPISODE_TOOLS as readonly string[]).includes(spec.name)) {
    throw new ServedToolsError(`${owner} has a tool named "${spec.name}", which the served episode tools use; it cannot be served as is`);
  }
  const schema = spec.parameters as { properties?: { [k: string]: JsonValue }; [k: string]: unknown };
  if (schema.properties && EPISODE_ID in schema.properties) {
    throw new ServedToolsError(`tool "${spec.name}" of ${owner} already has an "${EPISODE_ID}" argument, which the served tools add; it cannot be served as is`);
  }
  // MCP requires an object schema; ours are (OpenAI function form), the type is set for schemas that leave it implicit.
  const inputSchema = { ...schema, type: 'object' as const, properties: { ...(schema.properties ?? {}), [EPISODE_ID]: EPISODE_ID_SCHEMA } };
  return { name: spec.name, description: spec.description, inputSchema };
}

/**
 * What a session lists: the episode tools, the env's tools with `episode_id` added (an env whose
 * names clash with ours is refused), then the tools its open episodes' tasks bring (BFCL items
 * bring their own functions), minus any the env already lists or that would clash.
 */
export function servedTools(env: ToolEnv, split: Split, taskTools: readonly ToolSpec[] = []): Tool[] {
  const own = env.tools().map((spec) => withEpisodeId(spec, `environment "${env.id}"`));
  const names = new Set(own.map((t) => t.name));
  const brought: Tool[] = [];
  for (const spec of taskTools) {
    if (names.has(spec.name)) continue;
    names.add(spec.name);
    try {
      brought.push(withEpisodeId(spec, `a task of "${env.id}"`));
    } catch (error) {
      // Left out of the list; a call to it still reaches the episode, which answers as for any call.
      if (!(error instanceof ServedToolsError)) throw error;
    }
  }
  return [...episodeTools(split), ...own, ...brought];
}

export function isEpisodeTool(name: string): name is EpisodeToolName {
  return (EPISODE_TOOLS as readonly string[]).includes(name);
}

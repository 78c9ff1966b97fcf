/**
 * A served environment's tasks as a task file for the MCP adapter (envs/mcp/taskfile.ts), so that
 * `envace mcp serve` registered back with `envace envs add-mcp` is an environment again: each gold
 * trajectory opens its episode with start_task and then makes the env's own gold calls without an
 * episode_id (the session's one open episode takes them). The checklist is the env's own; the
 * end state is judged by the served env itself, through a `finish` state check after the episode.
 */
import type { JsonValue, Split, ToolEnv } from '../envs/types';
import { type TaskLine, toFileItem } from '../envs/mcp/taskfile';

/** One JSONL line per task of `split` (the first `limit`), in the adapter's task-file format. */
export function servedTaskLines(env: ToolEnv, split: Split, opts: { limit?: number } = {}): TaskLine[] {
  return env
    .tasks(split)
    .slice(0, opts.limit ?? Infinity)
    .map((ref) => {
      const task = env.task(ref.id);
      // The served finish needs the answer for the env's answer check; the adapter's own answer
      // item (from the env's checklist) still judges the agent's answer.
      const finishArgs: { [key: string]: JsonValue } = task.gold.answer !== null ? { answer: task.gold.answer } : {};
      return {
        id: task.id,
        instruction: task.instruction,
        split: task.split,
        checklist: [
          ...task.checklist.map(toFileItem),
          { kind: 'state' as const, weight: 0, tool: 'finish', arguments: finishArgs, match: { subset: { end_state: { passed: true } } }, description: `the served ${env.id} end-state check passes` },
        ],
        gold: { calls: [{ name: 'start_task', arguments: { task_id: task.id } }, ...task.gold.calls], answer: task.gold.answer },
        // One more act than the env allows: start_task.
        maxTurns: task.maxTurns + 1,
      };
    });
}

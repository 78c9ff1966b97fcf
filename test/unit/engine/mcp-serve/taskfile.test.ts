// The served env's tasks written as a task file must read back through the adapter's own parser with
// the same checklist: the engine's `args` is the file's `arguments` (a call item's `args` is refused).
import { describe, expect, it } from 'vitest';
import { parseTaskFile } from '../../../../electron/engine/envs/mcp/taskfile';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import { servedTaskLines } from '../../../../electron/engine/mcp-serve/taskfile';

describe('servedTaskLines', () => {
  it('writes lines the task-file parser accepts, with every call item keeping its arguments', () => {
    const env = new RetailEnv({ counts: { train: 0, heldout: 8, ood: 0 } });
    const lines = servedTaskLines(env, 'heldout');
    const text = lines.map((l) => JSON.stringify(l)).join('\n');
    expect(text).not.toContain('"args"');
    const parsed = parseTaskFile(text, 'served');
    expect(parsed).toHaveLength(8);
    for (const task of parsed) {
      const original = env.task(task.id);
      const callItems = (items: typeof task.checklist) => items.filter((i) => i.kind === 'call' || i.kind === 'no-call');
      expect(callItems(task.checklist)).toEqual(callItems(original.checklist));
      expect(callItems(original.checklist).some((i) => 'args' in i && i.args !== undefined)).toBe(true);
    }
  });
});

// The served env's tasks written as a task file must read back through the adapter's own parser with
// the same checklist: the engine's `args` is the file's `arguments` (a call item's `args` is refused).
import { describe, expect, it } from 'vitest';
import { parseTaskFile } from '../../../../electron/engine/envs/mcp/taskfile';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import { TauRetailEnv } from '../../../../electron/engine/envs/tau-retail/env';
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

  it("keeps a tau2 task's NL assertions as unchecked items the parser reads back", () => {
    const env = new TauRetailEnv();
    const judged = env.tasks('heldout').filter((r) => env.task(r.id).checklist.some((i) => i.kind === 'nl-assertion'));
    expect(judged.length).toBeGreaterThan(0);
    const lines = servedTaskLines(env, 'heldout').filter((l) => judged.some((r) => r.id === l.id));
    const parsed = parseTaskFile(lines.map((l) => JSON.stringify(l)).join('\n'), 'served');
    expect(parsed).toHaveLength(judged.length);
    for (const task of parsed) {
      const nl = (items: typeof task.checklist) => items.filter((i) => i.kind === 'nl-assertion');
      expect(nl(task.checklist)).toEqual(nl(env.task(task.id).checklist));
    }
  });
});

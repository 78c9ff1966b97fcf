import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnv } from '../../../electron/engine/envs/registry';
import type { Task, ToolEnv } from '../../../electron/engine/envs/types';
import { demoCorpus, expertTranscripts, readDemonstrationFile } from '../../../electron/engine/algorithms/demos';
import { AlgorithmError } from '../../../electron/engine/algorithms/errors';

const dir = mkdtempSync(join(tmpdir(), 'envace-demos-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let env: ToolEnv;
let task: Task;

beforeAll(async () => {
  env = await getEnv('retail', { worldSize: 5, counts: { train: 4, heldout: 1, ood: 0 } });
  task = env.task(env.tasks('train')[0].id);
});

const write = (name: string, lines: unknown[]) => {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return path;
};

describe('demonstrations', () => {
  it('the expert transcript replays the gold calls and ends with the gold answer', async () => {
    const [t] = await expertTranscripts(env, [task], 'none', 0);
    expect(t.instruction).toBe(task.instruction);
    expect(t.steps).toHaveLength(task.gold.calls.length + 1);
    expect(t.steps[t.steps.length - 1]).toEqual({ actionText: `<answer>${task.gold.answer}</answer>`, observation: null });
    expect(demoCorpus([t])).toContain(task.instruction);
  });

  it('reads a JSONL file by task id or free instruction', () => {
    const path = write('ok.jsonl', [
      { taskId: task.id, steps: [{ action: '<answer>x</answer>' }] },
      '',
      {
        instruction: 'Say hi.',
        steps: [
          { action: '<tool_call>{"name": "calculate", "arguments": {"expression": "1+1"}}</tool_call>', observation: '2' },
          { action: '<answer>hi</answer>' },
        ],
      },
    ]);
    const demos = readDemonstrationFile(path, env, 'none');
    expect(demos.map((d) => d.taskId)).toEqual([task.id, 'file:3']);
    expect(demos[0].instruction).toBe(task.instruction);
    expect(demos[1].steps[0].observation).toBe('2');
    expect(demos[1].steps[1].observation).toBeNull();
  });

  it('bad lines are errors naming the line', () => {
    expect(() => readDemonstrationFile(write('a.jsonl', ['{oops']), env, 'none')).toThrow(/a\.jsonl:1: not JSON/);
    expect(() => readDemonstrationFile(write('b.jsonl', [{ steps: [{ action: 'x' }] }]), env, 'none')).toThrow(
      /b\.jsonl:1: give a taskId or an instruction/,
    );
    expect(() => readDemonstrationFile(write('c.jsonl', [{ taskId: 'nope', steps: [{ action: 'x' }] }]), env, 'none')).toThrow(/no task 'nope'/);
    expect(() => readDemonstrationFile(write('d.jsonl', [{ instruction: 'i', steps: [] }]), env, 'none')).toThrow(AlgorithmError);
    expect(() => readDemonstrationFile(join(dir, 'missing.jsonl'), env, 'none')).toThrow(/cannot read/);
  });
});

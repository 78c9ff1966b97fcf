import { describe, expect, it } from 'vitest';
import { TaskFileError, parseTaskFile } from '../../../../../electron/engine/envs/mcp/taskfile';

const good = {
  id: 't1',
  instruction: 'Say hi through echo.',
  split: 'heldout',
  checklist: [{ kind: 'call', weight: 1, name: 'echo', args: { text: 'hi' } }],
  gold: { calls: [{ name: 'echo', arguments: { text: 'hi' } }], answer: 'hi' },
  maxTurns: 4,
};

function problemsOf(text: string): Array<{ line: number; message: string }> {
  try {
    parseTaskFile(text, 'srv', 'tasks.jsonl');
  } catch (err) {
    expect(err).toBeInstanceOf(TaskFileError);
    return (err as TaskFileError).problems;
  }
  throw new Error('expected a TaskFileError');
}

describe('MCP task file', () => {
  it('parses valid lines into tasks, filling defaults and skipping blank lines', () => {
    const minimal = { id: 't2', instruction: 'x', checklist: [{ kind: 'answer', weight: 1, expected: ['4'] }] };
    const tasks = parseTaskFile(`${JSON.stringify(good)}\n\n${JSON.stringify(minimal)}\n`, 'srv');
    expect(tasks).toHaveLength(2);
    expect(tasks[0]).toEqual({ ...good, env: 'srv', split: 'heldout', meta: { line: 1 } });
    expect(tasks[1]).toMatchObject({ id: 't2', env: 'srv', split: 'train', maxTurns: 12, gold: { calls: [], answer: null } });
  });

  it('reports every bad line with its line number and the field at fault', () => {
    const lines = [
      JSON.stringify(good),
      '{not json',
      JSON.stringify({ id: 'a', checklist: good.checklist }),
      JSON.stringify({ ...good, id: 'b', checklist: [{ kind: 'call', weight: -1, name: 'echo' }] }),
      JSON.stringify({ ...good, id: 'c', checklist: [{ kind: 'guess', weight: 1 }] }),
      JSON.stringify(good),
    ].join('\n');
    const problems = problemsOf(lines);
    expect([...new Set(problems.map((p) => p.line))]).toEqual([2, 3, 4, 5, 6]);
    const at = (line: number) => problems.filter((p) => p.line === line).map((p) => p.message);
    expect(at(2)[0]).toMatch(/^not valid JSON/);
    expect(at(3)[0]).toMatch(/^instruction:/);
    expect(at(4)[0]).toMatch(/^checklist\.0\.weight:/);
    expect(at(5)[0]).toMatch(/^checklist\.0\.kind:/);
    expect(at(6)).toEqual(['duplicate task id "t1" (first on line 1)']);
  });

  it('rejects a checklist whose weights are all zero and an empty file', () => {
    const zero = JSON.stringify({ ...good, checklist: [{ kind: 'call', weight: 0, name: 'echo' }] });
    expect(problemsOf(zero)[0].message).toMatch(/positive weight/);
    expect(problemsOf('\n\n')).toEqual([{ line: 0, message: 'no tasks in the file' }]);
  });

  it('names the file in the error message', () => {
    expect(() => parseTaskFile('{', 'srv', 'my-tasks.jsonl')).toThrow(/invalid task file my-tasks\.jsonl:\n {2}line 1: not valid JSON/);
  });
});

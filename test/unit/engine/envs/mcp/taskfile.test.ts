import { describe, expect, it } from 'vitest';
import { TaskFileError, parseTaskFile } from '../../../../../electron/engine/envs/mcp/taskfile';

const good = {
  id: 't1',
  instruction: 'Say hi through echo.',
  split: 'heldout',
  checklist: [{ kind: 'call', weight: 1, name: 'echo', arguments: { text: 'hi' } }],
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
    // The file's "arguments" is the engine checklist's `args`: the call item keeps what it was given.
    expect(tasks[0]).toEqual({ ...good, checklist: [{ kind: 'call', weight: 1, name: 'echo', args: { text: 'hi' } }], env: 'srv', split: 'heldout', meta: { line: 1 } });
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

  it('refuses a call item written with "args", saying to write "arguments" (it used to match any call of the tool)', () => {
    const line = JSON.stringify({ ...good, checklist: [{ kind: 'call', weight: 1, name: 'echo', args: { text: 'hi' } }] });
    const [problem] = problemsOf(line);
    expect(problem.line).toBe(1);
    expect(problem.message).toMatch(/^checklist\.0\.args: write "arguments", not "args"/);
  });

  it('refuses unknown keys, naming the key, where it sits and the key probably meant', () => {
    const lines = [
      JSON.stringify({ ...good, split: undefined, spilt: 'heldout' }),
      JSON.stringify({ ...good, id: 'x2', checklist: [{ kind: 'answer', weight: 1, expected: ['4'], exepcted: ['5'] }] }),
      JSON.stringify({ ...good, id: 'x3', gold: { calls: [{ name: 'echo', arguments: {}, argument: {} }] } }),
      JSON.stringify({ ...good, id: 'x4', checklist: [...good.checklist, { kind: 'state', tool: 'notes', match: { contains: 'a', absnet: true } }] }),
      JSON.stringify({ ...good, id: 'x5', colour: 'red' }),
    ].join('\n');
    const problems = problemsOf(lines);
    const at = (line: number) => problems.filter((p) => p.line === line).map((p) => p.message);
    expect(at(1)).toEqual(['spilt: unknown key "spilt" (did you mean "split"?)']);
    expect(at(2)).toEqual(['checklist.0.exepcted: unknown key "exepcted" (did you mean "expected"?)']);
    expect(at(3)).toEqual(['gold.calls.0.argument: unknown key "argument" (did you mean "arguments"?)']);
    expect(at(4)[0]).toMatch(/absnet/);
    expect(at(5)).toEqual([expect.stringMatching(/^colour: unknown key "colour" \(known keys: id, instruction, split, checklist, gold, maxTurns\)$/)]);
  });
});

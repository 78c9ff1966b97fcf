// MCP task files: a byte-order mark accepted, every line bounded before parsing, problems told by
// line without quoting it, and the file itself read through the user-path helper.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJsonLines } from '../../../../electron/engine/envs/jsonl';
import { TaskFileError, parseTaskFile, readTaskFile } from '../../../../electron/engine/envs/mcp/taskfile';

const dir = mkdtempSync(join(tmpdir(), 'task-file-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const task = JSON.stringify({ id: 't1', instruction: 'Say hi.', checklist: [{ kind: 'answer', weight: 1, expected: ['hi'] }] });

function problemsOf(fn: () => unknown): TaskFileError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TaskFileError);
    return e as TaskFileError;
  }
  throw new Error('expected a TaskFileError');
}

describe('task file bounds', () => {
  it('accepts a byte-order-marked file (it was refused as not JSON)', () => {
    expect(parseTaskFile(`\uFEFF${task}\n`, 'srv', 'bom.jsonl').map((t) => t.id)).toEqual(['t1']);
  });

  it('refuses deep and huge lines by their bounds, and malformed ones without quoting them', () => {
    const text = [task, '['.repeat(100_000) + ']'.repeat(100_000), `"${'x'.repeat(1024 * 1024)}"`, 'root:x:0:0:root:/root:/bin/bash'].join('\n');
    const e = problemsOf(() => parseTaskFile(text, 'srv', 'tasks.jsonl'));
    expect(e.problems).toEqual([
      { line: 2, message: 'the line nests deeper than 32 levels' },
      { line: 3, message: expect.stringMatching(/^the line is 1048578 characters; the limit is 1048576$/) },
      { line: 4, message: expect.stringMatching(/^not valid JSON/) },
    ]);
    expect(e.message).toMatch(/^invalid task file tasks\.jsonl:/);
    expect(e.message).not.toContain('root');
  });

  it('gives the position of a malformed line when JSON.parse gives one, never its text', () => {
    const [entry] = parseJsonLines('{"a": secret}');
    expect(entry.problem).toMatch(/^not valid JSON( \(at character \d+\))?$/);
  });

  it.runIf(process.platform !== 'win32')('reads the task file as a regular file only: a FIFO is refused at once', () => {
    const fifo = join(dir, 'tasks.fifo');
    execFileSync('mkfifo', [fifo]);
    const e = problemsOf(() => readTaskFile(fifo, 'srv'));
    expect(e.problems[0].message).toMatch(/^the task file \(.*\) is not a regular file/);
    const ok = join(dir, 'ok.jsonl');
    writeFileSync(ok, `\uFEFF${task}\r\n`);
    expect(readTaskFile(ok, 'srv')).toHaveLength(1);
  });
});

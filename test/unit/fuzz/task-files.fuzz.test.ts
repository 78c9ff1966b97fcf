// Fuzz of the JSONL files users hand the engine: MCP task files and SFT demonstration files. Deterministic
// mutations of a valid file (deep nesting, huge lines, wrong types, truncation, noise, byte-order marks,
// CRLF) each either parse or fail with the loader's typed error naming the file, in bounded time, without
// echoing a line that is not JSON (the canary: /etc/passwd's first line was echoed), and without taking the
// process down. (Schema errors on JSON lines may name the keys at fault; that is the user's own data.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Rand, pick, rand } from './seeded';
import { readDemonstrationFile } from '../../../electron/engine/algorithms/demos';
import { AlgorithmError } from '../../../electron/engine/algorithms/errors';
import { TaskFileError, parseTaskFile, readTaskFile } from '../../../electron/engine/envs/mcp/taskfile';
import type { Task, ToolEnv } from '../../../electron/engine/envs/types';

const dir = mkdtempSync(join(tmpdir(), 'fuzz-task-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CANARY = 'SECRET-CANARY';

const VALUES: readonly unknown[] = [null, true, 0, -1, 1e308, 2 ** 53 + 2, 0.5, '', 'x'.repeat(30_000), [], {}, [[[]]], { kind: 'call' }, '\u0000', '\ud800'];

/**
 * One mutation of a valid JSONL file given as objects. Returns the text and whether the mutation keeps
 * it valid (a byte-order mark, CRLF line ends and blank lines must still parse).
 */
function mutate(r: Rand, lines: Array<Record<string, unknown>>, fields: readonly string[]): { text: string; valid: boolean } {
  const json = lines.map((l) => JSON.stringify(l));
  const at = Math.floor(r() * json.length);
  switch (Math.floor(r() * 10)) {
    case 0: return { text: `\uFEFF${json.join('\n')}\n`, valid: true };
    case 1: return { text: `${json.join('\r\n')}\r\n\r\n`, valid: true };
    case 2: {
      const depth = 33 + Math.floor(r() * 200_000);
      json[at] = r() < 0.5 ? '['.repeat(depth) + ']'.repeat(depth) : `{"${pick(r, fields)}": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
      break;
    }
    case 3: json[at] = `{"${pick(r, fields)}": "${'y'.repeat(1024 * 1024 + Math.floor(r() * 100))}"}`; break;
    case 4: {
      const line = structuredClone(lines[at]);
      line[pick(r, fields)] = pick(r, VALUES);
      json[at] = JSON.stringify(line);
      break;
    }
    case 5: json[at] = json[at].slice(0, Math.floor(r() * json[at].length)); break;
    case 6: json.splice(at, 0, `${CANARY}:x:0:0:root:/root:/bin/bash`); break;
    case 7: {
      const chars = [...json[at]];
      for (let k = 0; k < 1 + Math.floor(r() * 5); k++) chars[Math.floor(r() * chars.length)] = pick(r, ['{', ']', '"', '\\', '\u0000', '\ud800', ',']);
      json[at] = chars.join('');
      break;
    }
    case 8: return { text: pick(r, ['', '\n\n', '\uFEFF', 'null', '[]', '"\uFEFF"']), valid: false };
    default: json.push(json[at]); // a duplicate
  }
  return { text: json.join('\n'), valid: false };
}

function timedVariant(run: () => unknown): { error: unknown; ms: number } {
  const t0 = performance.now();
  try {
    run();
    return { error: undefined, ms: performance.now() - t0 };
  } catch (error) {
    return { error, ms: performance.now() - t0 };
  }
}

const COUNT = 500;

describe(`${(2 * COUNT).toLocaleString('en-US')} mutated task files: clear error, no crash`, () => {
  it(`${COUNT} MCP task files: parsed, or a TaskFileError naming the file and lines, within 1 s, never quoting a non-JSON line`, () => {
    const lines = [
      { id: 't1', instruction: 'Say hi.', checklist: [{ kind: 'answer', weight: 1, expected: ['hi'] }] },
      { id: 't2', instruction: 'Echo x.', split: 'heldout', checklist: [{ kind: 'call', weight: 1, name: 'echo', arguments: { text: 'x' } }], gold: { calls: [{ name: 'echo', arguments: { text: 'x' } }], answer: null }, maxTurns: 4 },
    ];
    const fields = ['id', 'instruction', 'split', 'checklist', 'gold', 'maxTurns'];
    let slowest = 0;
    let failed = 0;
    for (let i = 0; i < COUNT; i++) {
      const r = rand(0x7a5c + i);
      const { text, valid } = mutate(r, lines, fields);
      const source = `tasks-${i}.jsonl`;
      let run = () => parseTaskFile(text, 'srv', source);
      if (i % 10 === 0) {
        // Every tenth goes through the file reader as the engine does.
        writeFileSync(join(dir, source), text);
        run = () => readTaskFile(join(dir, source), 'srv');
      }
      const { error, ms } = timedVariant(run);
      slowest = Math.max(slowest, ms);
      if (valid) expect(error, `variant ${i}`).toBeUndefined();
      if (error === undefined) continue;
      failed++;
      if (!(error instanceof TaskFileError)) throw new Error(`variant ${i}: ${String((error as Error)?.stack ?? error)}`);
      expect(error.message).toMatch(new RegExp(`^invalid task file .*tasks-${i}\\.jsonl:`));
      expect(error.problems.every((p) => Number.isInteger(p.line) && p.line >= 0 && p.message.length > 0)).toBe(true);
      expect(error.message).not.toContain(CANARY);
    }
    expect(slowest).toBeLessThan(1000);
    expect(failed).toBeGreaterThan(COUNT * 0.6);
  });

  it(`${COUNT} demonstration files: read, or an AlgorithmError naming sft.demonstrationsFile, within 1 s, never quoting a non-JSON line`, () => {
    const known: Task = { id: 't1', instruction: 'Say hi.' } as Task;
    const env = {
      id: 'stub',
      description: 'a stub',
      tools: () => [],
      task: (id: string) => {
        if (id !== 't1') throw new Error(`no task ${id}`);
        return known;
      },
    } as unknown as ToolEnv;
    const lines = [
      { taskId: 't1', steps: [{ action: '<answer>hi</answer>' }] },
      { instruction: 'Add.', initialObservation: 'ready', steps: [{ action: '<tool_call>{"name": "calc", "arguments": {}}</tool_call>', observation: '2' }, { action: '<answer>2</answer>' }] },
    ];
    const fields = ['taskId', 'instruction', 'initialObservation', 'steps'];
    let slowest = 0;
    let failed = 0;
    for (let i = 0; i < COUNT; i++) {
      const r = rand(0xde70 + i);
      const { text, valid } = mutate(r, lines, fields);
      const path = join(dir, `demos-${i}.jsonl`);
      writeFileSync(path, text);
      const { error, ms } = timedVariant(() => readDemonstrationFile(path, env, 'none'));
      slowest = Math.max(slowest, ms);
      if (valid) expect(error, `variant ${i}`).toBeUndefined();
      if (error === undefined) continue;
      failed++;
      if (!(error instanceof AlgorithmError)) throw new Error(`variant ${i}: ${String((error as Error)?.stack ?? error)}`);
      expect(error.message).toMatch(/sft\.demonstrationsFile/);
      expect(error.message).toContain(`demos-${i}.jsonl`);
      expect(error.message).not.toContain(CANARY);
    }
    expect(slowest).toBeLessThan(1000);
    expect(failed).toBeGreaterThan(COUNT * 0.6);
  });

  it('the process is alive and well afterwards', () => {
    expect(parseTaskFile('{"id": "a", "instruction": "b", "checklist": [{"kind": "answer", "weight": 1, "expected": ["c"]}]}', 'srv')).toHaveLength(1);
    expect(process.memoryUsage().heapUsed).toBeLessThan(1024 ** 3);
  });
});

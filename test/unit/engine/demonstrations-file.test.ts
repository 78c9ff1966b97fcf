// sft.demonstrationsFile goes through the one user-path helper: confined for the workbench window,
// regular files only (a FIFO hung the job, /dev/zero read without end), contents never echoed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../electron/contract';
import { readDemonstrationFile } from '../../../electron/engine/algorithms/demos';
import { AlgorithmError } from '../../../electron/engine/algorithms/errors';
import type { ToolEnv } from '../../../electron/engine/envs/types';
import { preflight, runConfigFileProblems } from '../../../electron/engine/runs/preflight';

const base = mkdtempSync(join(tmpdir(), 'demos-file-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const home = join(base, 'home');
mkdirSync(home);
const passwd = join(base, 'passwd');
writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n');
const onPosix = process.platform !== 'win32';

/** Just enough of an env for file demonstrations given by instruction. */
const env = { id: 'stub', description: 'a stub', tools: () => [], task: (id: string) => { throw new Error(`no ${id}`); } } as unknown as ToolEnv;

const line = JSON.stringify({ instruction: 'Say hi.', steps: [{ action: '<answer>hi</answer>' }] });
const config = (demonstrationsFile?: string) => RunConfig.parse({ env: 'mock', model: { preset: 'nano' }, algo: 'sft', sft: { demonstrations: 'file', demonstrationsFile } });

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('demonstrations file', () => {
  it('does not echo a file that is not demonstrations (it printed the first line of /etc/passwd)', () => {
    const e = thrown(() => readDemonstrationFile(passwd, env, 'none'));
    expect(e).toBeInstanceOf(AlgorithmError);
    expect(e.message).toMatch(/^sft\.demonstrationsFile .*passwd:1: not JSON/);
    expect(e.message).not.toContain('root');
  });

  it.runIf(onPosix)('refuses a FIFO and /dev/zero at once, naming the setting', () => {
    const fifo = join(home, 'demos.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const p of [fifo, '/dev/zero']) {
      const t0 = performance.now();
      expect(() => readDemonstrationFile(p, env, 'none')).toThrow(/sft\.demonstrationsFile \(.*\) is not a regular file/);
      expect(performance.now() - t0).toBeLessThan(100);
    }
  });

  it('accepts a byte-order mark and CRLF line ends; bounds each line', () => {
    const file = join(home, 'bom.jsonl');
    writeFileSync(file, `\uFEFF${line}\r\n${line}\r\n`);
    expect(readDemonstrationFile(file, env, 'none')).toHaveLength(2);
    const deep = join(home, 'deep.jsonl');
    writeFileSync(deep, `${line}\n${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
    expect(() => readDemonstrationFile(deep, env, 'none')).toThrow(/deep\.jsonl:2: the line nests deeper than 32 levels/);
  });

  it('is refused by pre-flight and runConfigFileProblems when outside the roots, with the knob named', async () => {
    expect(runConfigFileProblems(config(passwd), [home])).toEqual([
      { path: 'config.sft.demonstrationsFile', message: expect.stringMatching(/^sft\.demonstrationsFile must be inside/) },
    ]);
    expect(runConfigFileProblems(config(passwd))).toEqual([]);
    const inside = join(home, 'ok.jsonl');
    writeFileSync(inside, line);
    expect(runConfigFileProblems(config(inside), [home])).toEqual([]);

    const refused = await preflight(config(passwd), undefined, { roots: [home] });
    const check = refused.checks.find((c) => c.name === 'demonstrations');
    expect(check).toMatchObject({ ok: false, detail: expect.stringMatching(/^sft\.demonstrationsFile must be inside/) });
    expect(refused.ok).toBe(false);
    const missing = await preflight(config(join(home, 'absent.jsonl')));
    expect(missing.checks.find((c) => c.name === 'demonstrations')).toMatchObject({ ok: false, detail: expect.stringMatching(/does not exist/) });
    expect((await preflight(config(inside), undefined, { roots: [home] })).checks.find((c) => c.name === 'demonstrations')?.ok).toBe(true);
  });
});

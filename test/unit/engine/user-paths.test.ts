// One helper resolves, confines and reads every path a user names.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserPathError, checkUserFile, confineUserPath, readUserText, rootsForTransport } from '../../../electron/engine/home/user-paths';

const base = mkdtempSync(join(tmpdir(), 'user-paths-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const home = join(base, 'home');
const outside = join(base, 'outside');
mkdirSync(home);
mkdirSync(outside);
writeFileSync(join(home, 'ok.jsonl'), '{}\n');
writeFileSync(join(outside, 'secret.txt'), 'root:x:0:0:root:/root:/bin/bash\n');
const onPosix = process.platform !== 'win32';

const rule = { what: 'sft.demonstrationsFile', roots: [home], maxBytes: 1024 };

function errorOf(fn: () => unknown): UserPathError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserPathError);
    return e as UserPathError;
  }
  throw new Error('expected a UserPathError');
}

describe('user paths', () => {
  it('lets the command line go anywhere and keeps the workbench window inside its roots', () => {
    expect(rootsForTransport('in-process', home)).toBeUndefined();
    expect(rootsForTransport('websocket', home)).toEqual([home]);
    expect(readUserText(join(home, 'ok.jsonl'), rule).text).toBe('{}\n');
    expect(readUserText(join(outside, 'secret.txt'), { ...rule, roots: undefined }).text).toContain('root:x');
  });

  it('refuses a path outside the roots, naming the setting and never the contents', () => {
    const e = errorOf(() => readUserText(join(outside, 'secret.txt'), rule));
    expect(e.kind).toBe('outside');
    expect(e.message).toMatch(/^sft\.demonstrationsFile must be inside .* when chosen from the workbench window/);
    expect(e.message).not.toContain('root:x');
    expect(errorOf(() => confineUserPath(join(home, '..', 'outside', 'secret.txt'), rule)).kind).toBe('outside');
  });

  it.runIf(onPosix)('follows symlinks before confining: a link in the home to a file outside is refused', () => {
    symlinkSync(join(outside, 'secret.txt'), join(home, 'link.txt'));
    expect(errorOf(() => readUserText(join(home, 'link.txt'), rule)).kind).toBe('outside');
    // A folder that does not exist yet resolves through its existing parent.
    expect(confineUserPath(join(home, 'new', 'deeper'), rule)).toBe(join(confineUserPath(home, rule), 'new', 'deeper'));
  });

  it.runIf(onPosix)('refuses a FIFO, /dev/zero and a folder at once instead of hanging or reading without end', () => {
    const fifo = join(home, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    for (const [p, roots] of [[fifo, [home]], ['/dev/zero', undefined], [home, [home]]] as const) {
      const t0 = performance.now();
      const e = errorOf(() => readUserText(p, { ...rule, roots }));
      expect(e.kind).toBe('not_file');
      expect(e.message).toMatch(/^sft\.demonstrationsFile \(.*\) is not a regular file/);
      expect(performance.now() - t0).toBeLessThan(100);
    }
  });

  it('refuses a missing file and one over the size limit; checkUserFile reads nothing', () => {
    expect(errorOf(() => checkUserFile(join(home, 'absent.jsonl'), rule)).kind).toBe('missing');
    writeFileSync(join(home, 'big.jsonl'), 'x'.repeat(2048));
    const e = errorOf(() => checkUserFile(join(home, 'big.jsonl'), rule));
    expect(e.kind).toBe('too_large');
    expect(e.message).toMatch(/2048 bytes, over the 1024-byte limit/);
    expect(checkUserFile(join(home, 'ok.jsonl'), rule)).toBe(confineUserPath(join(home, 'ok.jsonl'), rule));
  });
});

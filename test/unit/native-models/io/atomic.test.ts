import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AtomicWriteError, recoverAtomicDir, writeDirAtomic, writeDirAtomicSync } from '../../../../native-models/io/atomic';

const root = mkdtempSync(join(tmpdir(), 'atomic-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const listing = (dir: string) => readdirSync(dir).sort();

describe('writeDirAtomicSync', () => {
  it('creates a folder (and missing parents) with what the fill wrote, leaving no temp folders', () => {
    const dir = join(root, 'a', 'b', 'ckpt');
    writeDirAtomicSync(dir, (tmp) => {
      expect(tmp).not.toBe(dir);
      expect(existsSync(dir)).toBe(false); // nothing visible until the fill is done
      writeFileSync(join(tmp, 'x.txt'), 'one');
      mkdirSync(join(tmp, 'sub'));
      writeFileSync(join(tmp, 'sub', 'y.txt'), 'two');
    });
    expect(readFileSync(join(dir, 'sub', 'y.txt'), 'utf8')).toBe('two');
    expect(listing(join(root, 'a', 'b'))).toEqual(['ckpt']);
  });

  it('replaces an existing folder entirely, and keeps it when the fill throws', () => {
    const dir = join(root, 'replace');
    writeDirAtomicSync(dir, (tmp) => writeFileSync(join(tmp, 'old.txt'), 'old'));
    writeDirAtomicSync(dir, (tmp) => writeFileSync(join(tmp, 'new.txt'), 'new'));
    expect(listing(dir)).toEqual(['new.txt']);
    const failing = () =>
      writeDirAtomicSync(dir, (tmp) => {
        writeFileSync(join(tmp, 'partial.txt'), 'half');
        throw new Error('disk full');
      });
    expect(failing).toThrow(AtomicWriteError);
    expect(failing).toThrow(/replace: write failed, previous contents kept \(disk full\)/);
    expect(listing(dir)).toEqual(['new.txt']);
    expect(listing(root).filter((n) => n.startsWith('replace'))).toEqual(['replace']);
  });
});

describe('writeDirAtomic', () => {
  it('awaits an async fill before swapping in, and cleans up after a rejected one', async () => {
    const dir = join(root, 'async');
    await writeDirAtomic(dir, async (tmp) => {
      await new Promise((r) => setTimeout(r, 5));
      writeFileSync(join(tmp, 'done.txt'), 'ok');
    });
    expect(readFileSync(join(dir, 'done.txt'), 'utf8')).toBe('ok');
    await expect(writeDirAtomic(dir, async () => Promise.reject(new Error('nope')))).rejects.toThrow(AtomicWriteError);
    expect(listing(dir)).toEqual(['done.txt']);
    expect(listing(root).filter((n) => n.startsWith('async'))).toEqual(['async']);
  });
});

describe('recoverAtomicDir', () => {
  it('moves a complete .ready- folder into place after a crash mid-swap', () => {
    const dir = join(root, 'crash1');
    mkdirSync(`${dir}.old-aaaa`);
    writeFileSync(join(`${dir}.old-aaaa`, 'v.txt'), 'old');
    mkdirSync(`${dir}.ready-bbbb`);
    writeFileSync(join(`${dir}.ready-bbbb`, 'v.txt'), 'new');
    mkdirSync(`${dir}.tmp-cccc`); // an unfinished write from an even earlier crash
    expect(recoverAtomicDir(dir)).toBe(true);
    expect(readFileSync(join(dir, 'v.txt'), 'utf8')).toBe('new');
    expect(listing(root).filter((n) => n.startsWith('crash1'))).toEqual(['crash1']);
  });

  it('restores the old folder when the crash came before the new one was ready', () => {
    const dir = join(root, 'crash2');
    mkdirSync(`${dir}.old-aaaa`);
    writeFileSync(join(`${dir}.old-aaaa`, 'v.txt'), 'old');
    mkdirSync(`${dir}.tmp-cccc`);
    expect(recoverAtomicDir(dir)).toBe(true);
    expect(readFileSync(join(dir, 'v.txt'), 'utf8')).toBe('old');
    expect(listing(root).filter((n) => n.startsWith('crash2'))).toEqual(['crash2']);
  });

  it('reports absence when there is nothing to recover, and ignores unrelated siblings', () => {
    const dir = join(root, 'never');
    mkdirSync(join(root, 'never.tmp-notes')); // not a hex id: not ours
    expect(recoverAtomicDir(dir)).toBe(false);
    expect(existsSync(join(root, 'never.tmp-notes'))).toBe(true);
  });
});

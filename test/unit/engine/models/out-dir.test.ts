import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExportError, checkOutDir } from '../../../../electron/engine/models/out-dir';
import { tempDirs } from './fixtures';

const tmp = tempDirs();
afterAll(tmp.cleanup);

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ExportError);
    return (e as ExportError).code;
  }
  return undefined;
}

describe('checkOutDir', () => {
  it('accepts a new folder and an empty one', () => {
    const root = tmp.make();
    expect(checkOutDir(join(root, 'new', 'deep'))).toBe(join(root, 'new', 'deep'));
    mkdirSync(join(root, 'empty'));
    expect(checkOutDir(join(root, 'empty'))).toBe(join(root, 'empty'));
  });

  it('refuses a non-empty folder unless forced, and force only over a previous export', () => {
    const root = tmp.make();
    const prev = join(root, 'prev');
    mkdirSync(prev);
    writeFileSync(join(prev, 'model-f16.gguf'), 'x');
    writeFileSync(join(prev, 'README.md'), 'x');
    expect(code(() => checkOutDir(prev))).toBe('OUT_DIR_NOT_EMPTY');
    expect(checkOutDir(prev, { force: true })).toBe(prev);
    writeFileSync(join(prev, 'thesis.docx'), 'precious');
    expect(code(() => checkOutDir(prev, { force: true }))).toBe('OUT_DIR_FOREIGN_FILES');
  });

  it("force replaces an ONNX export's onnx/ folder, but not one holding anything else", () => {
    const prev = join(tmp.make(), 'prev');
    mkdirSync(join(prev, 'onnx'), { recursive: true });
    writeFileSync(join(prev, 'config.json'), '{}');
    writeFileSync(join(prev, 'onnx', 'model.onnx'), 'x');
    writeFileSync(join(prev, 'onnx', 'model.onnx_data'), 'x');
    expect(checkOutDir(prev, { force: true })).toBe(prev);
    writeFileSync(join(prev, 'onnx', 'notes.txt'), 'precious');
    expect(code(() => checkOutDir(prev, { force: true }))).toBe('OUT_DIR_FOREIGN_FILES');
  });

  it('refuses a file, an empty path, and anything that is, holds or sits inside a protected path', () => {
    const home = tmp.make();
    const runs = join(home, 'runs');
    const models = join(home, 'models');
    mkdirSync(runs);
    mkdirSync(models);
    writeFileSync(join(home, 'file'), 'x');
    const protectedPaths = [runs, models];
    expect(code(() => checkOutDir(join(home, 'file')))).toBe('OUT_DIR_NOT_A_FOLDER');
    expect(code(() => checkOutDir(' '))).toBe('BAD_INPUT');
    expect(code(() => checkOutDir(runs, { protectedPaths, force: true }))).toBe('OUT_DIR_PROTECTED');
    expect(code(() => checkOutDir(join(models, 'x', 'y'), { protectedPaths }))).toBe('OUT_DIR_PROTECTED');
    expect(code(() => checkOutDir(home, { protectedPaths, force: true }))).toBe('OUT_DIR_PROTECTED');
    expect(checkOutDir(join(home, 'exports', 'e1'), { protectedPaths })).toBe(join(home, 'exports', 'e1'));
    // A symlink pointing into a protected folder is the protected folder.
    symlinkSync(models, join(home, 'alias'));
    expect(code(() => checkOutDir(join(home, 'alias', 'out'), { protectedPaths }))).toBe('OUT_DIR_PROTECTED');
  });
});

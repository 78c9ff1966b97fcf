/**
 * A sandbox folder on disk for one episode, and the path alias that hides where it lives: the
 * agent sees and writes "/sandbox/…", the server gets the real temporary path. The alias keeps
 * observations identical across episodes, which world-model training depends on.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { JsonValue } from '../types';
import type { SandboxTree } from './tree';

export const SANDBOX_ALIAS = '/sandbox';

export class Sandbox {
  private constructor(readonly root: string) {}

  /** Write the tree into a fresh folder under `parent` (the system's temp folder by default). */
  static async create(tree: SandboxTree, parent = tmpdir()): Promise<Sandbox> {
    await mkdir(parent, { recursive: true });
    // realpath: the server compares resolved paths, and tmpdir may sit behind a symlink.
    return Sandbox.fill(await realpath(await mkdtemp(join(parent, 'envace-files-'))), tree);
  }

  /** Write the tree into an existing empty folder (an episode folder of the restart policy). */
  static async fill(root: string, tree: SandboxTree): Promise<Sandbox> {
    for (const dir of tree.dirs) await mkdir(join(root, dir), { recursive: true });
    for (const file of tree.files) {
      await mkdir(dirname(join(root, file.path)), { recursive: true });
      await writeFile(join(root, file.path), file.content);
    }
    return new Sandbox(root);
  }

  /** The real path of an alias path ("/sandbox/a/b" → "<root>/a/b"); other strings pass through. */
  toReal(text: string): string {
    if (text === SANDBOX_ALIAS) return this.root;
    return text.startsWith(`${SANDBOX_ALIAS}/`) ? this.root + text.slice(SANDBOX_ALIAS.length) : text;
  }

  /** Every mention of the real root in server text, shown as the alias. */
  toAlias(text: string): string {
    return text.split(this.root).join(SANDBOX_ALIAS);
  }

  /** Arguments with each string (nested in arrays and objects too) mapped to real paths. */
  argsToReal(args: { [key: string]: JsonValue }): { [key: string]: JsonValue } {
    const map = (v: JsonValue): JsonValue => {
      if (typeof v === 'string') return this.toReal(v);
      if (Array.isArray(v)) return v.map(map);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, map(x)]));
      return v;
    };
    return map(args) as { [key: string]: JsonValue };
  }

  /** Content of an alias path, or null when there is no such file. */
  async read(aliasPath: string): Promise<string | null> {
    try {
      return await readFile(this.toReal(aliasPath), 'utf8');
    } catch {
      return null;
    }
  }

  async remove(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

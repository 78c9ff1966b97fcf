// Every path a user names (a model folder, an export folder, a task file, a demonstrations file) goes
// through here: resolved, symlinks followed, kept inside the allowed roots, and, for files, read only
// when it is a regular file under a size limit. Errors name the setting and the path, never the
// file's contents.

import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { folderNameProblem } from '../../contract/folder-name';
import { FileBoundsError, checkBoundedFile, readBoundedText } from '../../../native-models/io/bounded-file';

export type UserPathErrorKind = 'outside' | 'missing' | 'not_file' | 'too_large' | 'unreadable' | 'bad_name';

export class UserPathError extends Error {
  override name = 'UserPathError';
  constructor(
    readonly kind: UserPathErrorKind,
    /** The setting the path came from, e.g. "sft.demonstrationsFile". */
    readonly what: string,
    message: string,
  ) {
    super(message);
  }
}

export interface UserPathRule {
  /** Setting name used in messages. */
  what: string;
  /** Folders the path must resolve inside; undefined allows any path (the command line's own user). */
  roots?: readonly string[];
}

export interface UserFileRule extends UserPathRule {
  maxBytes: number;
}

/**
 * The roots a request may name paths in: a request from the workbench window (IPC or WebSocket) stays
 * inside the data home (quality.md, Security); the command line runs as its user and may go anywhere.
 */
export function rootsForTransport(transport: 'ipc' | 'websocket' | 'in-process', ...roots: string[]): string[] | undefined {
  return transport === 'in-process' ? undefined : roots;
}

/** realpath of the deepest existing ancestor, with the rest appended: a path that does not exist yet resolves too. */
function realish(p: string): string {
  let head = p;
  const tail: string[] = [];
  while (!existsSync(head)) {
    const parent = path.dirname(head);
    if (parent === head) return p;
    tail.unshift(path.basename(head));
    head = parent;
  }
  return path.join(realpathSync.native(head), ...tail);
}

const inside = (p: string, root: string) => p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

/** Absolute, symlink-free form of `p`, refused when it falls outside every allowed root. */
export function confineUserPath(p: string, rule: UserPathRule): string {
  const resolved = realish(path.resolve(p));
  if (rule.roots === undefined) return resolved;
  const roots = rule.roots.map((r) => realish(path.resolve(r)));
  if (!roots.some((r) => inside(resolved, r))) {
    throw new UserPathError('outside', rule.what, `${rule.what} must be inside ${rule.roots.join(' or ')} when chosen from the workbench window (got ${p})`);
  }
  return resolved;
}

/** Run a bounded-file operation, its errors retold as UserPathError for the setting. */
function asUserPathError<T>(rule: UserPathRule, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof FileBoundsError) throw new UserPathError(e.kind, rule.what, e.message);
    throw e;
  }
}

/** Confine `p` and read it as UTF-8 text of a regular file of at most `rule.maxBytes` (FIFOs, devices and folders refused). */
export function readUserText(p: string, rule: UserFileRule): { path: string; text: string } {
  const resolved = confineUserPath(p, rule);
  return { path: resolved, text: asUserPathError(rule, () => readBoundedText(resolved, rule.maxBytes, `${rule.what} (${p})`)) };
}

/** Confine and check a user's file without reading it (pre-flight checks, registration); returns the resolved path. */
export function checkUserFile(p: string, rule: UserFileRule): string {
  const resolved = confineUserPath(p, rule);
  asUserPathError(rule, () => checkBoundedFile(resolved, rule.maxBytes, `${rule.what} (${p})`));
  return resolved;
}

/**
 * `<parent>/<name>` for a name a user chose (an MCP environment id, a model name), refused unless the
 * name passes the folder-name rule and the result, resolved, is a direct child of `parent`: callers clear
 * and rewrite this folder, so it must never be the parent itself, a sibling or anything outside.
 */
export function childFolder(parent: string, name: string, what: string): string {
  const problem = folderNameProblem(name, what);
  if (problem) throw new UserPathError('bad_name', what, problem);
  const root = path.resolve(parent);
  const child = path.resolve(root, name);
  if (path.dirname(child) !== root || path.basename(child) !== name) throw new UserPathError('outside', what, `${what} ${JSON.stringify(name)} does not name a folder inside ${root}`);
  return child;
}

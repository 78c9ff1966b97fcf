import { z } from 'zod';

/**
 * One rule for every name a user picks that becomes a file or folder name under the data home (an MCP
 * environment's `mcp/<id>/`, an imported model's `models/<name>/`): a portable alphabet with no
 * separator, no dot segment, nothing a shell or Windows reads as special. An id such as `../runs` once
 * made registration clear `<home>/runs/`; a name this rule accepts cannot leave its parent folder.
 */
export const FOLDER_NAME_MAX = 64;
/** Starts with a letter, a digit or '_' (never '.', never '-', which a command line reads as a flag). */
const FOLDER_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
/** Names Windows reserves in every folder, with or without an extension. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
/** Suffixes of the atomic writer's temporary siblings (`<dir>.tmp-<hex>`, see native-models/io/atomic): tidied as leftovers. */
const ATOMIC_LEFTOVER = /\.(tmp|ready|old)-[0-9a-f]+$/;

/** Why `name` cannot be a folder name under the data home, or undefined when it can. `what` names it in the message ("an MCP environment id"). */
export function folderNameProblem(name: unknown, what: string): string | undefined {
  if (typeof name !== 'string') return `${what} must be a string, got ${typeof name}`;
  const shown = JSON.stringify(name.slice(0, 80));
  if (name.length === 0 || name.length > FOLDER_NAME_MAX) return `${what} must be 1–${FOLDER_NAME_MAX} characters (got ${name.length})`;
  if (!FOLDER_NAME_PATTERN.test(name)) return `${what} ${shown} must use only letters, digits, '.', '_' and '-', and start with a letter, a digit or '_'`;
  if (name.endsWith('.')) return `${what} ${shown} must not end with '.'`;
  if (WINDOWS_RESERVED.test(name)) return `${what} ${shown} is a name Windows reserves`;
  if (ATOMIC_LEFTOVER.test(name)) return `${what} ${shown} ends like a temporary folder (.tmp-/.ready-/.old-<hex>)`;
  return undefined;
}

/** A leftover of an interrupted atomic write, not a name anyone chose. */
export function isAtomicLeftover(folderName: string): boolean {
  return ATOMIC_LEFTOVER.test(folderName);
}

/** The zod form of the rule, for contract fields that become folder names. */
export const FolderName = (what: string) =>
  z.string().superRefine((name, ctx) => {
    const problem = folderNameProblem(name, what);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

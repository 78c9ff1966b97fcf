import { folderNameProblem, type MethodInput } from '../../../../electron/contract';

/**
 * The GGUF import form's pure part: the request it sends, or why not yet. The path rule is the one
 * the engine applies to a path from the window (handlers/models.ts, confineUserPath): a full path
 * inside the data home. This check is lexical (`..` resolved, no symlinks followed), so the engine
 * still has the last word; it catches what can be said before a 5-second import is started.
 */

export type GgufImportRequest = { ok: true; input: MethodInput<'models.import'> } | { ok: false; issues: { file?: string; name?: string } };

const isWindowsPath = (p: string) => /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');

/** An absolute path with `.` and `..` segments resolved and separators unified, or null when not absolute. */
export function normalisePath(p: string): string | null {
  const windows = isWindowsPath(p);
  if (!windows && !p.startsWith('/')) return null;
  const sep = windows ? '\\' : '/';
  const [root, rest] = windows ? [p.slice(0, 2), p.slice(2)] : ['', p];
  const parts: string[] = [];
  for (const part of rest.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `${root}${sep}${parts.join(sep)}`;
}

/** Is `p` the folder `root` or inside it (both absolute)? Windows paths compare case-blind, as the file system does. */
export function insideFolder(p: string, root: string): boolean {
  const a = normalisePath(p);
  const b = normalisePath(root);
  if (a === null || b === null) return false;
  const [x, y] = isWindowsPath(root) ? [a.toLowerCase(), b.toLowerCase()] : [a, b];
  const base = y.endsWith('/') || y.endsWith('\\') ? y : `${y}${isWindowsPath(root) ? '\\' : '/'}`;
  return x === y || x.startsWith(base);
}

/** What the model will be called when the name is left empty: the file's name without `.gguf`, as the engine names it. */
export function defaultModelName(file: string): string {
  const base = file.trim().split(/[\\/]/).pop() ?? '';
  return base.replace(/\.gguf$/i, '');
}

export function ggufImportRequest(dataHome: string | undefined, file: string, name: string): GgufImportRequest {
  const issues: { file?: string; name?: string } = {};
  const path = file.trim();
  if (path === '') issues.file = 'give the full path of a .gguf file';
  else if (normalisePath(path) === null) issues.file = `give the full path (it starts with / or a drive letter)${dataHome ? `, such as ${dataHome}/models-in/model.gguf` : ''}`;
  else if (dataHome && !insideFolder(path, dataHome)) {
    issues.file = `from the workbench window the GGUF file must be inside the data home (${dataHome}); move or copy it there, or import it from anywhere with npx envace import --gguf FILE`;
  }
  const chosen = name.trim();
  const effective = chosen === '' ? defaultModelName(path) : chosen;
  const nameIssue = effective === '' ? undefined : folderNameProblem(effective, chosen === '' ? 'the name taken from the file' : 'a model name');
  if (nameIssue) issues.name = chosen === '' ? `${nameIssue}; type a name` : nameIssue;
  if (issues.file || issues.name) return { ok: false, issues };
  return { ok: true, input: { ggufFile: path, ...(chosen === '' ? {} : { name: chosen }) } };
}

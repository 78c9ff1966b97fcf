import { ContractError, EnvsAddMcpInput } from '../../../../electron/contract';

/** The "Add an MCP server" form's pure parts: splitting the command line, building and checking the request. */

export interface McpFormValues {
  id: string;
  description: string;
  transport: 'stdio' | 'http';
  /** stdio: the command and its arguments as one would type them in a shell. */
  commandLine: string;
  url: string;
  taskFile: string;
  timeoutMs: string;
  maxOutputChars: string;
}

export type McpField = 'id' | 'description' | 'server' | 'taskFile' | 'timeoutMs' | 'maxOutputChars';
export type McpIssues = Partial<Record<McpField, string>>;

export const emptyMcpForm: McpFormValues = { id: '', description: '', transport: 'stdio', commandLine: '', url: '', taskFile: '', timeoutMs: '10000', maxOutputChars: '8000' };

/**
 * Words of a command line: spaces separate, single or double quotes keep spaces inside a word,
 * a backslash outside single quotes escapes the next character. No variables or globbing: the
 * engine starts the command directly, without a shell.
 */
export function splitCommandLine(text: string): { ok: true; words: string[] } | { ok: false; issue: string } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) return { ok: false, issue: `a ${quote === '"' ? 'double' : 'single'} quote is not closed` };
  if (inWord) words.push(word);
  return { ok: true, words };
}

function integer(text: string): number | string {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(n) ? n : text;
}

const fieldOf = (path: PropertyKey[]): McpField => {
  const head = String(path[0] ?? 'id');
  return (['id', 'description', 'server', 'taskFile', 'timeoutMs', 'maxOutputChars'] as const).find((f) => f === head) ?? 'server';
};

/** The form → an envs.addMcp request, checked against the contract's schema, or one issue per field. */
export function buildAddMcpInput(values: McpFormValues): { ok: true; value: EnvsAddMcpInput } | { ok: false; issues: McpIssues } {
  const issues: McpIssues = {};
  let server: unknown;
  if (values.transport === 'stdio') {
    const split = splitCommandLine(values.commandLine);
    if (!split.ok) issues.server = split.issue;
    else if (split.words.length === 0) issues.server = 'type the command that starts the server, e.g. npx -y @modelcontextprotocol/server-filesystem /data';
    else server = { command: split.words[0], args: split.words.slice(1) };
  } else {
    server = { url: values.url.trim() };
  }
  const parsed = EnvsAddMcpInput.safeParse({
    id: values.id.trim(),
    ...(values.description.trim() ? { description: values.description.trim() } : {}),
    server,
    taskFile: values.taskFile.trim(),
    timeoutMs: integer(values.timeoutMs),
    maxOutputChars: integer(values.maxOutputChars),
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path);
      // Zod words a bad server as "Invalid input" / "Invalid URL"; say what is expected instead.
      const message = field !== 'server' ? issue.message : values.transport === 'http' ? 'an http:// or https:// URL' : issue.code === 'invalid_union' ? 'a command and its arguments' : issue.message;
      issues[field] ??= message;
    }
  }
  if (Object.keys(issues).length > 0 || !parsed.success) return { ok: false, issues };
  return { ok: true, value: parsed.data };
}

/**
 * Where to show the engine's refusal: its schema issues name the field; otherwise its words
 * do (a missing task file, a server that would not start, an id already taken). Null: show it
 * above the form.
 */
export function engineErrorField(error: unknown): McpField | null {
  if (!(error instanceof ContractError)) return null;
  const first = error.issues?.[0];
  if (first) return fieldOf(first.path.split('.'));
  if (error.code === 'conflict') return 'id';
  if (/task file/i.test(error.message)) return 'taskFile';
  if (/could not start|server/i.test(error.message)) return 'server';
  return null;
}

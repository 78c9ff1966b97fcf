import { ContractError, EnvsAddMcpInput } from '../../../../electron/contract';
import { parseToolArguments } from './tool-arguments';

/** The "Add an MCP server" form's pure parts: splitting the command line, building and checking the request. */

/** One environment variable of the server process, as typed (blank rows are left out). */
export interface EnvVarRow {
  key: string;
  value: string;
}

/** How episodes are kept apart (the contract's McpReset kinds). */
export type ResetKind = 'restart' | 'tool' | 'none';

export interface McpFormValues {
  id: string;
  description: string;
  transport: 'stdio' | 'http';
  /** stdio: the command and its arguments as one would type them in a shell. */
  commandLine: string;
  /** stdio: environment variables of the server process. */
  envRows: EnvVarRow[];
  /** stdio: working folder of the server process (blank: the engine's). */
  cwd: string;
  url: string;
  reset: ResetKind;
  /** restart: files copied into each episode's fresh {episode_dir}, one path a line. */
  seedFiles: string;
  /** tool: the server's tool that resets its state, and its arguments as a JSON object. */
  resetTool: string;
  resetArguments: string;
  /** none: the person has ticked "episodes share one server state". */
  sharedState: boolean;
  taskFile: string;
  timeoutMs: string;
  maxOutputChars: string;
}

export type McpField = 'id' | 'description' | 'server' | 'env' | 'cwd' | 'reset' | 'taskFile' | 'timeoutMs' | 'maxOutputChars';
export type McpIssues = Partial<Record<McpField, string>>;

export const emptyMcpForm: McpFormValues = {
  id: '',
  description: '',
  transport: 'stdio',
  commandLine: '',
  envRows: [],
  cwd: '',
  url: '',
  reset: 'restart',
  seedFiles: '',
  resetTool: '',
  resetArguments: '{}',
  sharedState: false,
  taskFile: '',
  timeoutMs: '10000',
  maxOutputChars: '8000',
};

/** One line per reset policy, for the form and wherever the choice is explained. */
export const resetChoices: Record<ResetKind, { label: string; explains: string }> = {
  restart: {
    label: 'Restart per episode',
    explains: 'A fresh server process for every episode. {episode_dir} (a new empty folder, seed files copied in first) can be used in the arguments, environment values and working folder.',
  },
  tool: {
    label: 'Reset tool',
    explains: "The server's own reset tool is called before each episode; parallel episodes get separate server processes, which still share what the server keeps in its own files.",
  },
  none: {
    label: 'No reset (shared state)',
    explains: "One server for every episode, state and all: episodes see each other's writes, so results depend on what ran before.",
  },
};

/** Why a server reached by URL cannot be restarted (shown by the disabled choice and as the refusal). */
export const URL_CANNOT_RESTART = 'a server reached by URL cannot be restarted per episode: choose a reset tool or no reset';

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

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variable rows → a record; rows with neither name nor value are ignored, anything else half-filled or repeated is refused. */
export function envFromRows(rows: readonly EnvVarRow[]): { ok: true; env: Record<string, string> } | { ok: false; issue: string } {
  const env: Record<string, string> = {};
  for (const [index, row] of rows.entries()) {
    const key = row.key.trim();
    if (key === '' && row.value === '') continue;
    const where = `variable ${index + 1}`;
    if (key === '') return { ok: false, issue: `${where} has a value but no name` };
    if (!ENV_NAME.test(key)) return { ok: false, issue: `${where}: "${key}" is not a variable name (letters, digits and _, not starting with a digit)` };
    if (Object.hasOwn(env, key)) return { ok: false, issue: `${key} is set twice` };
    env[key] = row.value;
  }
  return { ok: true, env };
}

function integer(text: string): number | string {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(n) ? n : text;
}

const FIELDS: readonly McpField[] = ['id', 'description', 'server', 'env', 'cwd', 'reset', 'taskFile', 'timeoutMs', 'maxOutputChars'];

const fieldOf = (path: readonly PropertyKey[]): McpField => {
  const [head, next] = [String(path[0] ?? 'id'), String(path[1] ?? '')];
  if (head === 'server' && (next === 'env' || next === 'cwd')) return next;
  return FIELDS.find((f) => f === head) ?? 'server';
};

function buildReset(values: McpFormValues): { ok: true; reset: unknown } | { ok: false; issue: string } {
  switch (values.reset) {
    case 'restart': {
      if (values.transport === 'http') return { ok: false, issue: URL_CANNOT_RESTART };
      const seedFiles = values.seedFiles
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      return { ok: true, reset: { kind: 'restart', seedFiles } };
    }
    case 'tool': {
      const tool = values.resetTool.trim();
      if (tool === '') return { ok: false, issue: "name the server's tool that resets its state" };
      const args = parseToolArguments(values.resetArguments);
      if (!args.ok) return { ok: false, issue: `reset arguments: ${args.issue}` };
      return { ok: true, reset: { kind: 'tool', tool, arguments: args.value } };
    }
    case 'none':
      if (!values.sharedState) return { ok: false, issue: "tick the box to say episodes may share one server's state, or pick another reset" };
      return { ok: true, reset: { kind: 'none', sharedState: true } };
  }
}

/** The form → an envs.addMcp request, checked against the contract's schema, or one issue per field. */
export function buildAddMcpInput(values: McpFormValues): { ok: true; value: EnvsAddMcpInput } | { ok: false; issues: McpIssues } {
  const issues: McpIssues = {};
  let server: unknown;
  if (values.transport === 'stdio') {
    const split = splitCommandLine(values.commandLine);
    const env = envFromRows(values.envRows);
    const cwd = values.cwd.trim();
    if (!split.ok) issues.server = split.issue;
    else if (split.words.length === 0) issues.server = 'type the command that starts the server, e.g. npx -y @modelcontextprotocol/server-filesystem /data';
    if (!env.ok) issues.env = env.issue;
    if (split.ok && split.words.length > 0 && env.ok) server = { command: split.words[0], args: split.words.slice(1), env: env.env, ...(cwd ? { cwd } : {}) };
  } else {
    server = { url: values.url.trim() };
  }
  const reset = buildReset(values);
  if (!reset.ok) issues.reset = reset.issue;
  const parsed = EnvsAddMcpInput.safeParse({
    id: values.id.trim(),
    ...(values.description.trim() ? { description: values.description.trim() } : {}),
    server,
    taskFile: values.taskFile.trim(),
    ...(reset.ok ? { reset: reset.reset } : {}),
    timeoutMs: integer(values.timeoutMs),
    maxOutputChars: integer(values.maxOutputChars),
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path);
      // A server left out above (bad command line or variables) has its issue already.
      if (field === 'server' && server === undefined) continue;
      // Zod words a bad server as "Invalid input" / "Invalid URL"; say what is expected instead.
      const message = field !== 'server' ? issue.message : values.transport === 'http' ? 'an http:// or https:// URL' : issue.code === 'invalid_union' ? 'a command and its arguments' : issue.message;
      // A reset refused above (URL + restart) makes the schema complain again; the first words stay.
      issues[field] ??= message;
    }
  }
  if (Object.keys(issues).length > 0 || !parsed.success) return { ok: false, issues };
  return { ok: true, value: parsed.data };
}

/**
 * Where to show the engine's refusal: its schema issues name the field; otherwise its words
 * do (a seed or task file outside the home or missing, a server that would not start, an id
 * already taken). Null: show it above the form.
 */
export function engineErrorField(error: unknown): McpField | null {
  if (!(error instanceof ContractError)) return null;
  const first = error.issues?.[0];
  if (first) return fieldOf(first.path.split('.'));
  if (error.code === 'conflict') return 'id';
  if (/seed file/i.test(error.message)) return 'reset';
  if (/task file/i.test(error.message)) return 'taskFile';
  if (/could not start|server/i.test(error.message)) return 'server';
  return null;
}

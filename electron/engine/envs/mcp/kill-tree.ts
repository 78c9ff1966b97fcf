/**
 * Kill a process and every process it started. A stdio MCP server is often a wrapper (`npx`, `uvx`,
 * `sh -c`, a node shim) around the real server; SIGKILL to the wrapper alone leaves the real server
 * running, holding the episode's files and a CPU, after its call timed out. Used by McpConnection.kill.
 *
 * POSIX: freeze the tree with SIGSTOP, top down and in rounds until a round finds nothing new (a
 * stopped process cannot fork, so the set stops growing), then SIGKILL it children first. Windows:
 * `taskkill /T /F` (untested here).
 */
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';

interface ProcessRow {
  pid: number;
  ppid: number;
  /** One-letter state: T/t stopped, Z/X dead (only an exit status left); '' when not known. */
  state: string;
}

/** A tree that keeps spawning faster than it can be stopped is killed as found after this many rounds. */
const MAX_STOP_ROUNDS = 10;

/** Every process on the machine with its parent: /proc on Linux, `ps` elsewhere. */
async function processTable(): Promise<ProcessRow[]> {
  if (process.platform === 'linux') return procTable();
  const out = await new Promise<string>((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,stat='], { maxBuffer: 16 * 1024 * 1024 }, (_err, stdout) => resolve(stdout ?? ''));
  });
  return out.split('\n').flatMap((line) => {
    const [pid, ppid, stat] = line.trim().split(/\s+/);
    return pid && ppid ? [{ pid: Number(pid), ppid: Number(ppid), state: (stat ?? '').charAt(0) }] : [];
  });
}

/**
 * /proc/<pid>/stat for every pid. (`/proc/<pid>/task/<tid>/children` would be cheaper, but it needs
 * CONFIG_PROC_CHILDREN, which not every kernel has.)
 */
async function procTable(): Promise<ProcessRow[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const rows = await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name): Promise<ProcessRow | null> => {
        const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => null);
        if (stat === null) return null; // exited while we read
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return { pid: Number(name), ppid: Number(ppid), state: state ?? '' };
      }),
  );
  return rows.filter((row): row is ProcessRow => row !== null);
}

/** Descendants of `root` in `table`, each parent before its children (breadth first); `root` itself excluded. */
function descendantsIn(root: number, table: readonly ProcessRow[]): ProcessRow[] {
  const children = new Map<number, ProcessRow[]>();
  for (const row of table) {
    if (row.pid === row.ppid) continue;
    const list = children.get(row.ppid);
    if (list) list.push(row);
    else children.set(row.ppid, [row]);
  }
  const out: ProcessRow[] = [];
  const seen = new Set<number>([root]);
  for (let queue = [root]; queue.length > 0; ) {
    const next: number[] = [];
    for (const parent of queue) {
      for (const child of children.get(parent) ?? []) {
        if (seen.has(child.pid)) continue;
        seen.add(child.pid);
        out.push(child);
        next.push(child.pid);
      }
    }
    queue = next;
  }
  return out;
}

/** The pids of every live descendant of `pid` (children, grandchildren, ...), parents first. */
export async function descendantPids(pid: number): Promise<number[]> {
  return descendantsIn(pid, await processTable()).map((row) => row.pid);
}

/**
 * Send a signal, ignoring failure: ESRCH (already gone) is expected, EPERM (a descendant that became
 * another user) cannot be helped, and no other error is possible for a numeric pid and a named signal.
 */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // see above
  }
}

const settled = (state: string): boolean => state === 'T' || state === 't' || state === 'Z' || state === 'X';

/** SIGKILL `pid` and all its descendants; best effort, never throws. */
export async function killProcessTree(pid: number): Promise<void> {
  if (process.platform === 'win32') {
    await new Promise<void>((resolve) => execFile('taskkill', ['/T', '/F', '/PID', String(pid)], () => resolve()));
    return;
  }
  // Freeze first: a process listed but still running could fork a child after the listing, and
  // that child would survive. The root is stopped before its children are even looked for.
  signal(pid, 'SIGSTOP');
  const order = [pid];
  try {
    const stopped = new Set(order);
    for (let round = 0; round < MAX_STOP_ROUNDS; round++) {
      const tree = descendantsIn(pid, await processTable());
      const fresh = tree.filter((row) => !stopped.has(row.pid));
      for (const row of fresh) {
        signal(row.pid, 'SIGSTOP');
        stopped.add(row.pid);
        order.push(row.pid);
      }
      // Done once a round adds nobody and every process listed has really stopped (SIGSTOP lands
      // asynchronously: one caught mid-fork may still add a child before it stops).
      if (fresh.length === 0 && tree.every((row) => settled(row.state) || row.state === '')) break;
    }
  } finally {
    // Whatever happened above, nothing we stopped is left stopped.
    // Children before parents (`order` lists parents first; every ancestor was found no later than
    // its descendants). A killed child stays a zombie while its parent is stopped and alive, so its
    // pid cannot be handed to an unrelated new process before we are done: every pid signalled is
    // still the process we found. Killing a parent first would orphan its stopped children instead;
    // and a process group orphaned with stopped members is sent SIGHUP and SIGCONT by the kernel,
    // waking them up to fork again before their SIGKILL arrives. The root, our own child, goes last.
    for (const target of order.reverse()) signal(target, 'SIGKILL');
  }
}

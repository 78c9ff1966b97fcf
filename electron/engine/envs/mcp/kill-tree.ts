/**
 * Kill a process and every process it started. A stdio MCP server is often a wrapper (`npx`, `uvx`,
 * `sh -c`, a node shim) around the real server; SIGKILL to the wrapper alone leaves the real server
 * running, holding the episode's files and a CPU, after its call timed out. Used by McpConnection.kill
 * through the server's transport (server-process.ts).
 *
 * POSIX: the server runs as the leader of its own process group, and the group's members are found
 * even when the wrapper has exited by itself and left them with pid 1 as parent, where no walk down
 * from the wrapper reaches them. Freeze the group and the tree below the root and below every member
 * (a member may start processes that leave the group with setsid) with SIGSTOP, in rounds until a
 * round finds nothing new (a stopped process cannot fork, so the set stops growing), then SIGKILL it
 * children first. Windows: `taskkill /T /F` on the root (untested here).
 */
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';

interface ProcessRow {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** One-letter state: T/t stopped, Z/X dead (only an exit status left); '' when not known. */
  state: string;
}

/** A tree that keeps spawning faster than it can be stopped is killed as found after this many rounds. */
const MAX_STOP_ROUNDS = 10;

/** Every process on the machine with its parent: /proc on Linux, `ps` elsewhere. */
async function processTable(): Promise<ProcessRow[]> {
  if (process.platform === 'linux') return procTable();
  const out = await new Promise<string>((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat='], { maxBuffer: 16 * 1024 * 1024 }, (_err, stdout) => resolve(stdout ?? ''));
  });
  return out.split('\n').flatMap((line) => {
    const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
    return pid && ppid && pgid ? [{ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), state: (stat ?? '').charAt(0) }] : [];
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
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ')'.
        const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return { pid: Number(name), ppid: Number(ppid), pgid: Number(pgid), state: state ?? '' };
      }),
  );
  return rows.filter((row): row is ProcessRow => row !== null);
}

/**
 * The processes `seeds` and all their descendants in `table`, each parent before its children
 * (breadth first). A seed that descends from another seed is reached through that one, so the order
 * holds whatever order the seeds come in. A seed no longer listed contributes its listed children.
 */
function familyIn(seeds: Iterable<number>, table: readonly ProcessRow[]): ProcessRow[] {
  const byPid = new Map(table.map((row) => [row.pid, row]));
  const children = new Map<number, ProcessRow[]>();
  for (const row of table) {
    if (row.pid === row.ppid) continue;
    const list = children.get(row.ppid);
    if (list) list.push(row);
    else children.set(row.ppid, [row]);
  }
  const seedSet = new Set(seeds);
  const belowAnotherSeed = (pid: number): boolean => {
    // Bounded by the table's size: the listing is not atomic, so a reused pid could close a loop.
    let up = byPid.get(byPid.get(pid)?.ppid ?? -1);
    for (let hops = 0; up && hops < table.length; hops++, up = byPid.get(up.ppid)) if (seedSet.has(up.pid)) return true;
    return false;
  };
  let queue = [...seedSet].filter((pid) => !belowAnotherSeed(pid));
  const seen = new Set(queue);
  const out = queue.flatMap((pid) => byPid.get(pid) ?? []);
  while (queue.length > 0) {
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
  return familyIn([pid], await processTable())
    .filter((row) => row.pid !== pid)
    .map((row) => row.pid);
}

const dead = (state: string): boolean => state === 'Z' || state === 'X';

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

/**
 * Signal every process of group `group` (a negative pid to kill(2)). Only a real group of another
 * process: 0 would be our own group and -1 every process we may signal.
 */
export function signalGroup(group: number, sig: NodeJS.Signals): void {
  if (Number.isInteger(group) && group > 1 && group !== process.pid) signal(-group, sig);
}

/**
 * The pids of the processes of group `group` that still run. A zombie does not count: a member whose
 * parent exited is reparented to pid 1, and not every container's pid 1 reaps, so it can stay listed dead.
 */
export async function groupMembers(group: number): Promise<number[]> {
  try {
    process.kill(-group, 0); // cheap first look: ESRCH when the group has no member at all
  } catch {
    return [];
  }
  return (await processTable()).filter((row) => row.pgid === group && !dead(row.state)).map((row) => row.pid);
}

const settled = (state: string): boolean => state === 'T' || state === 't' || dead(state);

/**
 * SIGKILL `pid` (null: it has exited and its pid may no longer be ours), every member of process
 * group `group` (null: none) and all their descendants; best effort, never throws.
 */
export async function killProcessTree(pid: number | null, group: number | null = null): Promise<void> {
  if (process.platform === 'win32') {
    if (pid !== null) await new Promise<void>((resolve) => execFile('taskkill', ['/T', '/F', '/PID', String(pid)], () => resolve()));
    return;
  }
  if (pid === null && group === null) return;
  // Freeze first: a process listed but still running could fork a child after the listing, and
  // that child would survive. The group and the root are stopped before anything is looked for.
  if (group !== null) signalGroup(group, 'SIGSTOP');
  if (pid !== null) signal(pid, 'SIGSTOP');
  const order = pid !== null ? [pid] : [];
  try {
    const stopped = new Set(order);
    for (let round = 0; round < MAX_STOP_ROUNDS; round++) {
      const table = await processTable();
      const members = group === null ? [] : table.filter((row) => row.pgid === group).map((row) => row.pid);
      const tree = familyIn(pid !== null ? [pid, ...members] : members, table);
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
    // waking them up to fork again before their SIGKILL arrives. The root, our own child, goes last
    // of the listed; then the group once more, for a member the listing missed (no `ps`, say).
    for (const target of order.reverse()) signal(target, 'SIGKILL');
    if (group !== null) signalGroup(group, 'SIGKILL');
  }
}

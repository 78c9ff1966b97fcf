import type { Memory, RehearsalMemory } from '../../contract';
import type { Db } from './database';

interface MemoryRow {
  id: number;
  env: string;
  task_id: string;
  run_id: string | null;
  parent_id: number | null;
  version: number;
  structured: string;
  text: string;
  source: 'rehearsal' | 'edit';
  created_at: number;
}

export class MemoriesRepo {
  constructor(private readonly db: Db) {}

  insert(args: { env: string; taskId: string; runId: string | null; structured: RehearsalMemory; text: string }, now = Date.now()): Memory {
    const info = this.db
      .prepare(`INSERT INTO memories (env, task_id, run_id, parent_id, version, structured, text, source, created_at) VALUES (?, ?, ?, NULL, 1, ?, ?, 'rehearsal', ?)`)
      .run(args.env, args.taskId, args.runId, JSON.stringify(args.structured), args.text, now);
    return this.get(Number(info.lastInsertRowid))!;
  }

  /** Edits are versions: the edited memory stays as it was, the new one points at it. */
  edit(parent: Memory, structured: RehearsalMemory, text: string, now = Date.now()): Memory {
    const info = this.db
      .prepare(`INSERT INTO memories (env, task_id, run_id, parent_id, version, structured, text, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'edit', ?)`)
      .run(parent.env, parent.taskId, parent.runId, parent.id, parent.version + 1, JSON.stringify(structured), text, now);
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): Memory | null {
    const row = this.db.prepare('SELECT * FROM memories WHERE id = ?').get(id) as MemoryRow | undefined;
    return row ? toMemory(row) : null;
  }

  list(filter: { env?: string; taskId?: string; runId?: string; limit: number }): Memory[] {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      where.push(clause);
      params.push(value);
    };
    if (filter.env !== undefined) add('env = ?', filter.env);
    if (filter.taskId !== undefined) add('task_id = ?', filter.taskId);
    if (filter.runId !== undefined) add('run_id = ?', filter.runId);
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const rows = this.db.prepare(`SELECT * FROM memories ${clause} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...params, filter.limit) as MemoryRow[];
    return rows.map(toMemory);
  }
}

function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id,
    env: row.env,
    taskId: row.task_id,
    runId: row.run_id,
    parentId: row.parent_id,
    version: row.version,
    structured: JSON.parse(row.structured),
    text: row.text,
    source: row.source,
    createdAt: row.created_at,
  };
}

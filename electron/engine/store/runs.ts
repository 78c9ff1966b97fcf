import { plannedSteps, RunConfig, type Run, type RunStatus } from '../../contract';
import type { Db } from './database';

interface RunRow {
  id: string;
  name: string;
  env: string;
  algo: string;
  model: string;
  config: string;
  status: RunStatus;
  current_step: number;
  total_steps: number;
  eta_ms: number | null;
  best_heldout_success: number | null;
  parent_run_id: string | null;
  parent_step: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface RunPatch {
  status?: RunStatus;
  currentStep?: number;
  etaMs?: number | null;
  bestHeldoutSuccess?: number | null;
  error?: string | null;
  startedAt?: number | null;
  finishedAt?: number | null;
}

const patchColumns: Record<keyof RunPatch, string> = {
  status: 'status',
  currentStep: 'current_step',
  etaMs: 'eta_ms',
  bestHeldoutSuccess: 'best_heldout_success',
  error: 'error',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
};

export function modelLabel(config: RunConfig): string {
  return 'preset' in config.model ? `preset:${config.model.preset}` : `imported:${config.model.imported}`;
}

export function defaultRunName(config: RunConfig): string {
  return config.name ?? `${config.algo} · ${config.env} · ${modelLabel(config).replace(/^preset:/, '')}`;
}

export class RunsRepo {
  constructor(private readonly db: Db) {}

  insert(args: { id: string; config: RunConfig; parentRunId?: string | null; parentStep?: number | null; now?: number }): Run {
    const now = args.now ?? Date.now();
    const { config } = args;
    this.db
      .prepare(
        `INSERT INTO runs (id, name, env, algo, model, config, status, total_steps, parent_run_id, parent_step, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'created', ?, ?, ?, ?, ?)`,
      )
      .run(args.id, defaultRunName(config), config.env, config.algo, modelLabel(config), JSON.stringify(config), plannedSteps(config), args.parentRunId ?? null, args.parentStep ?? null, now, now);
    return this.get(args.id)!;
  }

  get(id: string): Run | null {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
    return row ? this.toRun(row) : null;
  }

  list(filter: { status?: RunStatus; search?: string; limit: number; offset: number }): { items: Run[]; total: number } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.search) {
      where.push("(name LIKE ? ESCAPE '\\' OR env LIKE ? ESCAPE '\\' OR algo LIKE ? ESCAPE '\\' OR model LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\')");
      const like = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      params.push(like, like, like, like, like);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.db.prepare(`SELECT COUNT(*) FROM runs ${clause}`).pluck().get(...params) as number;
    const rows = this.db.prepare(`SELECT * FROM runs ${clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`).all(...params, filter.limit, filter.offset) as RunRow[];
    return { items: rows.map((row) => this.toRun(row)), total };
  }

  update(id: string, patch: RunPatch, now = Date.now()): void {
    const sets: string[] = ['updated_at = ?'];
    const params: unknown[] = [now];
    for (const [key, column] of Object.entries(patchColumns) as Array<[keyof RunPatch, string]>) {
      if (patch[key] !== undefined) {
        sets.push(`${column} = ?`);
        params.push(patch[key]);
      }
    }
    this.db.prepare(`UPDATE runs SET ${sets.join(', ')} WHERE id = ?`).run(...params, id);
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes > 0;
  }

  addCheckpoint(runId: string, step: number, path: string, now = Date.now()): void {
    this.db.prepare('INSERT OR REPLACE INTO checkpoints (run_id, step, path, created_at) VALUES (?, ?, ?, ?)').run(runId, step, path, now);
  }

  /** Forget checkpoints (retention); their folders are the caller's to delete, after this commits. */
  deleteCheckpoints(runId: string, steps: readonly number[]): void {
    const del = this.db.prepare('DELETE FROM checkpoints WHERE run_id = ? AND step = ?');
    for (const step of steps) del.run(runId, step);
  }

  /** Recorded checkpoints with their folders and the held-out success measured at their step, if any. */
  checkpointRecords(runId: string): Array<{ step: number; path: string; heldoutSuccess: number | null }> {
    return this.db
      .prepare(
        `SELECT c.step, c.path, m.value AS heldoutSuccess FROM checkpoints c
         LEFT JOIN metrics m ON m.run_id = c.run_id AND m.step = c.step AND m.key = 'eval/success'
         WHERE c.run_id = ? ORDER BY c.step`,
      )
      .all(runId) as Array<{ step: number; path: string; heldoutSuccess: number | null }>;
  }

  /**
   * Steps of `runId` another run will still load: a fork (parent step) or an `initFrom` of a run that
   * has no checkpoint of its own yet — it reads that folder when it starts (or starts over), so
   * retention must leave it. Once the other run has its own checkpoint it resumes from that instead.
   */
  pinnedCheckpoints(runId: string): Set<number> {
    const rows = this.db
      .prepare(
        `SELECT r.parent_run_id AS parent, r.parent_step AS parentStep, r.config FROM runs r
         WHERE r.id != ? AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.run_id = r.id)
           AND (r.parent_run_id = ? OR r.config LIKE ? ESCAPE '\\')`,
      )
      .all(runId, runId, `%${runId.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as Array<{ parent: string | null; parentStep: number | null; config: string }>;
    const pinned = new Set<number>();
    for (const row of rows) {
      if (row.parent === runId && row.parentStep !== null) pinned.add(row.parentStep);
      const init = (JSON.parse(row.config) as RunConfig).initFrom;
      // No step: the source's latest when it starts, which retention always keeps.
      if (init?.runId === runId && init.step !== undefined) pinned.add(init.step);
    }
    return pinned;
  }

  checkpointPath(runId: string, step: number): string | null {
    return (this.db.prepare('SELECT path FROM checkpoints WHERE run_id = ? AND step = ?').pluck().get(runId, step) as string | undefined) ?? null;
  }

  /** Runs left 'running' or 'queued' by an engine that died: marked interrupted at start-up. */
  markInterrupted(now = Date.now()): number {
    return this.db
      .prepare(`UPDATE runs SET status = 'interrupted', eta_ms = NULL, updated_at = ?, error = COALESCE(error, 'the engine stopped while this run was active; resume it from its last checkpoint') WHERE status IN ('running','queued')`)
      .run(now).changes;
  }

  private toRun(row: RunRow): Run {
    const checkpoints = this.db.prepare('SELECT step, created_at AS createdAt FROM checkpoints WHERE run_id = ? ORDER BY step').all(row.id) as Run['checkpoints'];
    return {
      id: row.id,
      name: row.name,
      env: row.env,
      algo: row.algo as Run['algo'],
      model: row.model,
      status: row.status,
      // Stored configs were validated on the way in; parsing again fills defaults added since.
      config: RunConfig.parse(JSON.parse(row.config)),
      currentStep: row.current_step,
      totalSteps: row.total_steps,
      etaMs: row.eta_ms,
      bestHeldoutSuccess: row.best_heldout_success,
      parentRunId: row.parent_run_id,
      parentStep: row.parent_step,
      error: row.error,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      checkpoints,
    };
  }
}

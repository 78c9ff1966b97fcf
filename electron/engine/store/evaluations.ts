import type { EvalResult } from '../../contract';
import type { Db } from './database';

export type StoredEvaluation = EvalResult & { id: number; createdAt: number };

export class EvaluationsRepo {
  constructor(private readonly db: Db) {}

  /** `memories` defaults to rehearse, as for results stored before it existed. */
  insert(input: Omit<EvalResult, 'memories'> & Partial<Pick<EvalResult, 'memories'>>, now = Date.now()): StoredEvaluation {
    const result: EvalResult = { memories: 'rehearse', ...input };
    const info = this.db
      .prepare('INSERT INTO evaluations (run_id, step, split, rehearsals, mode, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(result.runId, result.step, result.split, result.rehearsals, result.mode, JSON.stringify(result), now);
    return { ...result, id: Number(info.lastInsertRowid), createdAt: now };
  }

  list(runId?: string, limit = 200): StoredEvaluation[] {
    const rows = (
      runId === undefined
        ? this.db.prepare('SELECT id, result, created_at FROM evaluations ORDER BY created_at DESC, id DESC LIMIT ?').all(limit)
        : this.db.prepare('SELECT id, result, created_at FROM evaluations WHERE run_id = ? ORDER BY created_at DESC, id DESC LIMIT ?').all(runId, limit)
    ) as Array<{ id: number; result: string; created_at: number }>;
    // Rows from before `memories` existed were fresh rehearsals (or none).
    return rows.map((r) => {
      const stored = JSON.parse(r.result) as Omit<EvalResult, 'memories'> & Partial<Pick<EvalResult, 'memories'>>;
      return { ...stored, memories: stored.memories ?? 'rehearse', id: r.id, createdAt: r.created_at };
    });
  }
}

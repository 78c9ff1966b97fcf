import type { MetricSeries } from '../../contract';
import type { Db } from './database';

export interface MetricsQuery {
  runId: string;
  keys?: string[];
  fromStep?: number;
  toStep?: number;
  maxPoints: number;
}

export class MetricsRepo {
  constructor(private readonly db: Db) {}

  /** One step's values. Duplicate (run, key, step) is an error: resume truncates first. */
  append(runId: string, step: number, values: Record<string, number>): void {
    const insert = this.db.prepare('INSERT INTO metrics (run_id, key, step, value) VALUES (?, ?, ?, ?)');
    for (const [key, value] of Object.entries(values)) {
      if (Number.isFinite(value)) insert.run(runId, key, step, value);
    }
  }

  keys(runId: string): string[] {
    return this.db.prepare('SELECT DISTINCT key FROM metrics WHERE run_id = ? ORDER BY key').pluck().all(runId) as string[];
  }

  /** Drop everything after `step` (used before resuming from a checkpoint at `step`). */
  truncateAfter(runId: string, step: number): number {
    return this.db.prepare('DELETE FROM metrics WHERE run_id = ? AND step > ?').run(runId, step).changes;
  }

  /**
   * Series for charts. Above maxPoints the engine buckets by step range and returns the
   * bucket mean with its min and max, so spikes survive down-sampling.
   */
  query(q: MetricsQuery): MetricSeries[] {
    const keys = q.keys ?? this.keys(q.runId);
    const from = q.fromStep ?? 0;
    const to = q.toStep ?? Number.MAX_SAFE_INTEGER;
    return keys.map((key) => {
      const range = this.db
        .prepare('SELECT COUNT(*) AS n, MIN(step) AS lo, MAX(step) AS hi FROM metrics WHERE run_id = ? AND key = ? AND step BETWEEN ? AND ?')
        .get(q.runId, key, from, to) as { n: number; lo: number | null; hi: number | null };
      if (range.n <= q.maxPoints || range.lo === null || range.hi === null) {
        const rows = this.db
          .prepare('SELECT step, value FROM metrics WHERE run_id = ? AND key = ? AND step BETWEEN ? AND ? ORDER BY step')
          .raw()
          .all(q.runId, key, from, to) as Array<[number, number]>;
        const steps = rows.map((r) => r[0]);
        const values = rows.map((r) => r[1]);
        return { key, steps, values, min: values, max: values, total: range.n };
      }
      const width = Math.ceil((range.hi - range.lo + 1) / q.maxPoints);
      const rows = this.db
        .prepare(
          `SELECT MIN(step), AVG(value), MIN(value), MAX(value) FROM metrics
           WHERE run_id = ? AND key = ? AND step BETWEEN ? AND ?
           GROUP BY (step - CAST(? AS INTEGER)) / CAST(? AS INTEGER) ORDER BY 1`,
        )
        .raw()
        .all(q.runId, key, from, to, range.lo, width) as Array<[number, number, number, number]>;
      return {
        key,
        steps: rows.map((r) => r[0]),
        values: rows.map((r) => r[1]),
        min: rows.map((r) => r[2]),
        max: rows.map((r) => r[3]),
        total: range.n,
      };
    });
  }
}

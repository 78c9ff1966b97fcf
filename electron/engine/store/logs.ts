import type { RunLogLine } from '../../contract';
import type { Db } from './database';

/** Lines kept per run: enough to read a failure's lead-up, small enough that a chatty run cannot grow the store without bound. */
export const LOG_LINES_PER_RUN = 2000;

export class LogsRepo {
  constructor(
    private readonly db: Db,
    private readonly cap = LOG_LINES_PER_RUN,
  ) {}

  /** Append one line and drop the run's lines older than its newest `cap` (ids are shared by all runs, so count this run's own). */
  append(runId: string, line: Omit<RunLogLine, 'runId'>): void {
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO run_logs (run_id, level, message, time) VALUES (?, ?, ?, ?)').run(runId, line.level, line.message, line.time);
      this.db
        .prepare('DELETE FROM run_logs WHERE run_id = ? AND id <= (SELECT id FROM run_logs WHERE run_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)')
        .run(runId, runId, this.cap);
    })();
  }

  /** The newest `limit` lines, oldest first (the order the panel shows them). */
  list(runId: string, limit = this.cap): RunLogLine[] {
    const rows = this.db
      .prepare('SELECT level, message, time FROM run_logs WHERE run_id = ? ORDER BY id DESC LIMIT ?')
      .all(runId, limit) as Array<{ level: RunLogLine['level']; message: string; time: number }>;
    return rows.reverse().map((r) => ({ runId, level: r.level, message: r.message, time: r.time }));
  }
}

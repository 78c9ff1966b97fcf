/**
 * A run's log lines (the `run.log` events), so the Dashboard's Log panel survives a reload or a
 * restart. Bounded per run by the repository (logs.ts), not here: SQLite has no per-key cap.
 */
export const version = 4;
export const name = 'run-logs';
export const up = /* sql */ `
CREATE TABLE run_logs (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  level TEXT NOT NULL CHECK (level IN ('info','warn','error')),
  message TEXT NOT NULL,
  time INTEGER NOT NULL
);
CREATE INDEX run_logs_run ON run_logs(run_id, id);
`;

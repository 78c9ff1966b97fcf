/**
 * Exports may be verl training folders (`envace export --run ID --format verl`). SQLite cannot change a
 * CHECK constraint in place, so the table is rebuilt with the wider list and its rows copied over.
 * Version 5, not 4: run-logs took 4 while this was written, and versions need not be contiguous.
 */
export const version = 5;
export const name = 'export-verl';
export const up = /* sql */ `
CREATE TABLE exports_new (
  id INTEGER PRIMARY KEY,
  run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
  model TEXT,
  step INTEGER,
  format TEXT NOT NULL CHECK (format IN ('hf','onnx','lora','gguf','verl')),
  path TEXT NOT NULL,
  files TEXT NOT NULL CHECK (json_valid(files)),
  created_at INTEGER NOT NULL
);
INSERT INTO exports_new (id, run_id, model, step, format, path, files, created_at)
  SELECT id, run_id, model, step, format, path, files, created_at FROM exports;
DROP TABLE exports;
ALTER TABLE exports_new RENAME TO exports;
`;

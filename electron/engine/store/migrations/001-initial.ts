/**
 * The first schema: shaped for the later work (forks, checkpoints, 1e6-row metric curves,
 * rollouts with per-turn token blobs, versioned memories, exports). Imported models are folders under
 * the data home with their own manifest (electron/engine/models), not rows.
 */
export const version = 1;
export const name = 'initial';
export const up = /* sql */ `
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  env TEXT NOT NULL,
  algo TEXT NOT NULL,
  model TEXT NOT NULL,
  config TEXT NOT NULL CHECK (json_valid(config)),
  status TEXT NOT NULL CHECK (status IN ('created','queued','running','completed','failed','cancelled','interrupted')),
  current_step INTEGER NOT NULL DEFAULT 0,
  total_steps INTEGER NOT NULL,
  eta_ms REAL,
  best_heldout_success REAL,
  parent_run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
  parent_step INTEGER,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX runs_created ON runs(created_at DESC);

CREATE TABLE checkpoints (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  path TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, step)
);

-- Curves are read by (run, key, step range): the primary key is that index, and WITHOUT ROWID
-- keeps the rows clustered in it so a 1e6-row series is one range scan.
CREATE TABLE metrics (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  step INTEGER NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, key, step)
) WITHOUT ROWID;

CREATE TABLE memories (
  id INTEGER PRIMARY KEY,
  env TEXT NOT NULL,
  task_id TEXT NOT NULL,
  run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
  parent_id INTEGER REFERENCES memories(id) ON DELETE SET NULL,
  version INTEGER NOT NULL,
  structured TEXT NOT NULL CHECK (json_valid(structured)),
  text TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('rehearsal','edit')),
  created_at INTEGER NOT NULL
);
CREATE INDEX memories_task ON memories(env, task_id, created_at DESC);

CREATE TABLE rollouts (
  id INTEGER PRIMARY KEY,
  run_id TEXT REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER,
  task_id TEXT NOT NULL,
  env TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('real','rehearse','mixed','test-time')),
  reward REAL,
  success INTEGER,
  checklist TEXT CHECK (checklist IS NULL OR json_valid(checklist)),
  env_calls INTEGER NOT NULL DEFAULT 0,
  env_wall_ms REAL NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  memory_id INTEGER REFERENCES memories(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX rollouts_run_step ON rollouts(run_id, step);
CREATE INDEX rollouts_task ON rollouts(env, task_id);

-- Token ids are little-endian int32 blobs, log-probs and advantages float32 blobs.
CREATE TABLE turns (
  rollout_id INTEGER NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('prompt','act','rehearse','env','memory')),
  text TEXT NOT NULL,
  token_ids BLOB,
  logprobs BLOB,
  advantages BLOB,
  real_text TEXT,
  fidelity TEXT CHECK (fidelity IS NULL OR json_valid(fidelity)),
  PRIMARY KEY (rollout_id, idx)
) WITHOUT ROWID;

CREATE TABLE exports (
  id INTEGER PRIMARY KEY,
  run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
  model TEXT,
  step INTEGER,
  format TEXT NOT NULL CHECK (format IN ('hf','onnx','lora','gguf')),
  path TEXT NOT NULL,
  files TEXT NOT NULL CHECK (json_valid(files)),
  created_at INTEGER NOT NULL
);
`;

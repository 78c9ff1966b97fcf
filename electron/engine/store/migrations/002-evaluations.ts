/** Held-out evaluations (with or without test-time rehearsal), kept for the Evaluate view and the experiment table. */
export const version = 2;
export const name = 'evaluations';
export const up = /* sql */ `
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  split TEXT NOT NULL CHECK (split IN ('train','heldout','ood')),
  rehearsals INTEGER NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('parallel','sequential')),
  result TEXT NOT NULL CHECK (json_valid(result)),
  created_at INTEGER NOT NULL
);
CREATE INDEX evaluations_run ON evaluations(run_id, created_at DESC);
`;

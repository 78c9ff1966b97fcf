/**
 * Test-time rollouts say what they were: a private rehearsal (imagined, never touching the env)
 * or a committed real run. Both keep mode 'test-time'; rows from before this column stay NULL.
 */
export const version = 3;
export const name = 'rollout-purpose';
export const up = /* sql */ `
ALTER TABLE rollouts ADD COLUMN purpose TEXT CHECK (purpose IS NULL OR purpose IN ('rehearsal','commit'));
`;

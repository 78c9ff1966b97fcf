// Small things a user reads: a memory never says "confidence -0.00"; one seed limit for runs and evaluations.
import { describe, expect, it } from 'vitest';
import { EvalsRunInput, RunConfig, SEED_MAX } from '../../../electron/contract';
import { renderMemory } from '../../../electron/engine/algorithms/memory-text';

const memory = (confidence: number) => ({
  rehearsals: [{ plan: [], predictedObservations: [], answer: 'done', confidence, problems: [] }],
  consensus: { plan: [], answer: 'done' },
  notes: '',
});

describe('what users read', () => {
  it('renders a confidence that rounds to zero as 0.00, never -0.00', () => {
    expect(renderMemory(memory(-0.001))).toContain('(confidence 0.00)');
    expect(renderMemory(memory(-0.004))).not.toContain('-0.00');
    expect(renderMemory(memory(-0.25))).toContain('(confidence -0.25)');
  });

  it('takes the same seeds for a run and an evaluation', () => {
    for (const seed of [0, SEED_MAX]) {
      expect(RunConfig.safeParse({ env: 'retail', seed }).success).toBe(true);
      expect(EvalsRunInput.safeParse({ runId: 'run-1', seed }).success).toBe(true);
    }
    expect(RunConfig.safeParse({ env: 'retail', seed: SEED_MAX + 1 }).success).toBe(false);
    expect(EvalsRunInput.safeParse({ runId: 'run-1', seed: SEED_MAX + 1 }).success).toBe(false);
  });
});

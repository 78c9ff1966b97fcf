import { describe, expect, it } from 'vitest';
import { availableActions, failureSummary } from '../../../../renderer/src/views/runs/run-actions';

const checkpoint = [{ step: 10, createdAt: 0 }];

describe('availableActions', () => {
  it('offers what each status allows, as the engine decides it', () => {
    expect(availableActions({ status: 'created', checkpoints: [] })).toEqual(['start', 'duplicate', 'delete']);
    expect(availableActions({ status: 'queued', checkpoints: [] })).toEqual(['cancel', 'duplicate']);
    expect(availableActions({ status: 'running', checkpoints: checkpoint })).toEqual(['cancel', 'fork', 'duplicate']);
    expect(availableActions({ status: 'interrupted', checkpoints: checkpoint })).toEqual(['resume', 'fork', 'duplicate', 'delete']);
    expect(availableActions({ status: 'completed', checkpoints: checkpoint })).toEqual(['fork', 'duplicate', 'delete']);
  });

  it('offers Resume only with a checkpoint to resume from', () => {
    expect(availableActions({ status: 'failed', checkpoints: [] })).toEqual(['duplicate', 'delete']);
    expect(availableActions({ status: 'cancelled', checkpoints: [] })).toEqual(['duplicate', 'delete']);
    expect(availableActions({ status: 'failed', checkpoints: checkpoint })).toEqual(['resume', 'fork', 'duplicate', 'delete']);
  });
});

describe('failureSummary', () => {
  it('keeps the first line and truncates it with an ellipsis', () => {
    expect(failureSummary('out of memory\n  at step 3')).toBe('out of memory');
    expect(failureSummary('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

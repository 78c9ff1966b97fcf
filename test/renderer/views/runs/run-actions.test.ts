import { describe, expect, it } from 'vitest';
import { availableActions } from '../../../../renderer/src/views/runs/run-actions';

const checkpoint = [{ step: 10, createdAt: 0 }];

describe('availableActions', () => {
  it('offers what each status allows, as the engine decides it', () => {
    expect(availableActions({ status: 'created', checkpoints: [] })).toEqual(['start', 'delete']);
    expect(availableActions({ status: 'queued', checkpoints: [] })).toEqual(['cancel']);
    expect(availableActions({ status: 'running', checkpoints: checkpoint })).toEqual(['cancel', 'fork']);
    expect(availableActions({ status: 'interrupted', checkpoints: checkpoint })).toEqual(['resume', 'fork', 'delete']);
    expect(availableActions({ status: 'failed', checkpoints: [] })).toEqual(['resume', 'delete']);
    expect(availableActions({ status: 'cancelled', checkpoints: [] })).toEqual(['resume', 'delete']);
    expect(availableActions({ status: 'completed', checkpoints: checkpoint })).toEqual(['fork', 'delete']);
  });
});

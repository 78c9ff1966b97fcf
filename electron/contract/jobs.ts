import { z } from 'zod';
import { Id, Timestamp } from './common';

export const JobKind = z.enum(['train', 'evaluate', 'rehearse', 'export', 'import', 'probe']);
export const JobState = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);

export const Job = z.strictObject({
  id: Id,
  kind: JobKind,
  label: z.string(),
  state: JobState,
  /** 0..1, null while unknown. */
  fraction: z.number().min(0).max(1).nullable(),
  etaMs: z.number().nullable(),
  message: z.string(),
  runId: Id.nullable(),
  error: z.string().nullable(),
  createdAt: Timestamp,
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
});
export type Job = z.infer<typeof Job>;

export const JobsListOutput = z.strictObject({ items: z.array(Job) });
export const JobIdInput = z.strictObject({ id: Id });

import { z } from 'zod';
import { Id, Step, Timestamp } from './common';
import { Job } from './jobs';
import { ModelsPullProgress } from './models';
import { RunStatus } from './runs';
import { RolloutId, RolloutMode } from './trajectories';

/** Every event the engine pushes; transports are generic over this table. */
export const events = {
  'run.progress': z.strictObject({
    runId: Id,
    step: Step,
    totalSteps: Step,
    fraction: z.number().min(0).max(1),
    etaMs: z.number().nullable(),
    phase: z.string(),
  }),
  'run.metrics': z.strictObject({ runId: Id, step: Step, values: z.record(z.string(), z.number()) }),
  'run.trajectory': z.strictObject({ runId: Id, step: Step, rolloutId: RolloutId, mode: RolloutMode, reward: z.number().nullable() }),
  'run.log': z.strictObject({ runId: Id, level: z.enum(['info', 'warn', 'error']), message: z.string(), time: Timestamp }),
  'run.status': z.strictObject({ runId: Id, status: RunStatus, error: z.string().nullable() }),
  'job.update': Job,
  /** A Hub pull's bytes so far (models.pull), at most a few a second. */
  'models.pull.progress': ModelsPullProgress,
  /** The engine process itself: 'restarting' after a crash, 'ready' when serving again. */
  'engine.status': z.strictObject({ state: z.enum(['ready', 'restarting', 'down']), message: z.string() }),
} as const;

export type EventTable = typeof events;
export type EventName = keyof EventTable;
export type EventPayload<E extends EventName> = z.infer<EventTable[E]>;
export const eventNames = Object.keys(events) as EventName[];

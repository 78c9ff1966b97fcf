import { z } from 'zod';
import { Id, Step } from './common';

export const MetricKey = z.string().min(1).max(100).regex(/^[A-Za-z0-9_./:-]+$/);

export const MetricsQueryInput = z.strictObject({
  runId: Id,
  /** Omit for every key the run has. */
  keys: z.array(MetricKey).max(64).optional(),
  fromStep: Step.optional(),
  toStep: Step.optional(),
  /** The engine down-samples to at most this many points per series (bucket mean, with min/max kept). */
  maxPoints: z.number().int().min(2).max(100_000).default(2000),
});

export const MetricSeries = z.strictObject({
  key: MetricKey,
  steps: z.array(z.number()),
  values: z.array(z.number()),
  /** Per-bucket extremes; equal to values when not down-sampled. */
  min: z.array(z.number()),
  max: z.array(z.number()),
  /** Points in the store for this key and range, before down-sampling. */
  total: z.number().int(),
});
export type MetricSeries = z.infer<typeof MetricSeries>;

export const MetricsQueryOutput = z.strictObject({ runId: Id, series: z.array(MetricSeries) });
export const MetricsKeysOutput = z.strictObject({ keys: z.array(MetricKey) });

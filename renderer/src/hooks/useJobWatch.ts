import { useEffect, useState } from 'react';
import type { Job } from '../../../electron/contract';
import { useEvent } from './useEvents';

export interface JobWatch {
  kind: Job['kind'];
  runId: string;
  /** When the person started the action: older jobs of the same kind are not this one. */
  since: number;
}

/** The job an action started, followed through `job.update` events; null until its first event. */
export function useJobWatch(watch: JobWatch | null): Job | null {
  const [job, setJob] = useState<Job | null>(null);
  useEffect(() => setJob(null), [watch]);
  useEvent('job.update', (update) => {
    if (!watch || update.kind !== watch.kind || update.runId !== watch.runId || update.createdAt < watch.since - 1000) return;
    setJob(update);
  });
  return job;
}

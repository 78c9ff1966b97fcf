import { randomUUID } from 'node:crypto';
import type { Job } from '../../contract';
import { EtaEstimator } from './eta';

export interface JobContext {
  readonly jobId: string;
  readonly signal: AbortSignal;
  /** fraction in [0, 1] (null while unknown) and a short human message. */
  progress(fraction: number | null, message?: string): void;
}

export interface JobSpec {
  kind: Job['kind'];
  label: string;
  runId?: string | null;
  run(ctx: JobContext): Promise<void>;
}

export class JobCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'JobCancelled';
  }
}

interface Entry {
  job: Job;
  spec: JobSpec;
  controller: AbortController;
  eta: EtaEstimator;
  done: Promise<Job>;
  resolve: (job: Job) => void;
}

const KEEP_FINISHED = 50;

/**
 * One compute job at a time (one device), the rest wait in order. Every job is cancellable
 * through its AbortSignal and reports progress with an ETA; updates go to `onUpdate`.
 */
export class JobQueue {
  private readonly entries: Entry[] = [];
  private running: Entry | null = null;

  constructor(private readonly onUpdate: (job: Job) => void = () => {}) {}

  enqueue(spec: JobSpec): Job {
    let resolve!: (job: Job) => void;
    const done = new Promise<Job>((r) => (resolve = r));
    const entry: Entry = {
      spec,
      controller: new AbortController(),
      eta: new EtaEstimator(),
      done,
      resolve,
      job: {
        id: randomUUID(),
        kind: spec.kind,
        label: spec.label,
        state: 'queued',
        fraction: null,
        etaMs: null,
        message: 'waiting for the compute device',
        runId: spec.runId ?? null,
        error: null,
        createdAt: Date.now(),
        startedAt: null,
        finishedAt: null,
      },
    };
    this.entries.push(entry);
    this.publish(entry);
    this.pump();
    return { ...entry.job };
  }

  list(): Job[] {
    return this.entries.map((e) => ({ ...e.job }));
  }

  get(id: string): Job | null {
    const entry = this.entries.find((e) => e.job.id === id);
    return entry ? { ...entry.job } : null;
  }

  /** Resolves when the job has finished, whatever its outcome. */
  wait(id: string): Promise<Job> {
    const entry = this.entries.find((e) => e.job.id === id);
    if (!entry) return Promise.reject(new Error(`no job ${id}`));
    return entry.done;
  }

  cancel(id: string): boolean {
    const entry = this.entries.find((e) => e.job.id === id);
    if (!entry || (entry.job.state !== 'queued' && entry.job.state !== 'running')) return false;
    if (entry.job.state === 'queued') {
      this.finish(entry, 'cancelled', null);
    } else {
      entry.job.message = 'cancelling…';
      this.publish(entry);
    }
    entry.controller.abort(new JobCancelled());
    return true;
  }

  /** Cancel everything and wait for the running job to stop. */
  async shutdown(): Promise<void> {
    for (const entry of this.entries) this.cancel(entry.job.id);
    if (this.running) await this.running.done;
  }

  private pump(): void {
    if (this.running) return;
    const next = this.entries.find((e) => e.job.state === 'queued');
    if (!next) return;
    this.running = next;
    next.job.state = 'running';
    next.job.startedAt = Date.now();
    next.job.message = 'starting';
    this.publish(next);
    const ctx: JobContext = {
      jobId: next.job.id,
      signal: next.controller.signal,
      progress: (fraction, message) => {
        if (next.job.state !== 'running') return;
        const f = fraction === null ? null : Math.min(1, Math.max(0, fraction));
        next.job.fraction = f;
        next.job.etaMs = f === null ? null : next.eta.update(f);
        if (message !== undefined) next.job.message = message;
        this.publish(next);
      },
    };
    next.spec
      .run(ctx)
      .then(
        () => this.finish(next, next.controller.signal.aborted ? 'cancelled' : 'completed', null),
        (error: unknown) => {
          const cancelled = next.controller.signal.aborted || error instanceof JobCancelled;
          this.finish(next, cancelled ? 'cancelled' : 'failed', cancelled ? null : error instanceof Error ? error.message : String(error));
        },
      )
      .finally(() => {
        this.running = null;
        this.pump();
      });
  }

  private finish(entry: Entry, state: 'completed' | 'failed' | 'cancelled', error: string | null): void {
    entry.job.state = state;
    entry.job.error = error;
    entry.job.finishedAt = Date.now();
    entry.job.etaMs = state === 'completed' ? 0 : null;
    if (state === 'completed') entry.job.fraction = 1;
    entry.job.message = state === 'failed' ? `failed: ${error}` : state;
    this.publish(entry);
    entry.resolve({ ...entry.job });
    this.trim();
  }

  private trim(): void {
    const finished = this.entries.filter((e) => e.job.finishedAt !== null);
    for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) {
      this.entries.splice(this.entries.indexOf(old), 1);
    }
  }

  private publish(entry: Entry): void {
    this.onUpdate({ ...entry.job });
  }
}

import type { ExportFormat } from '../../contract';
import { migrate, openDatabase, type Db, type OpenOptions } from './database';
import { migrations } from './migrations';
import { EvaluationsRepo } from './evaluations';
import { ExportsRepo } from './exports';
import { LogsRepo } from './logs';
import { MemoriesRepo } from './memories';
import { MetricsRepo } from './metrics';
import { RolloutsRepo, type NewRollout } from './rollouts';
import { RunsRepo, type RunPatch } from './runs';

export interface StepWrite {
  runId: string;
  step: number;
  metrics: Record<string, number>;
  rollouts: NewRollout[];
  run?: RunPatch;
}

/** The workbench's SQLite store: one connection, one repository per table family. */
export class Store {
  readonly runs: RunsRepo;
  readonly metrics: MetricsRepo;
  readonly rollouts: RolloutsRepo;
  readonly memories: MemoriesRepo;
  readonly exports: ExportsRepo;
  readonly evaluations: EvaluationsRepo;
  readonly logs: LogsRepo;

  constructor(
    readonly db: Db,
    exportSnippet: (format: ExportFormat, outDir: string, files: Array<{ name: string; bytes: number }>) => string = () => '',
  ) {
    this.runs = new RunsRepo(db);
    this.metrics = new MetricsRepo(db);
    this.rollouts = new RolloutsRepo(db);
    this.memories = new MemoriesRepo(db);
    this.exports = new ExportsRepo(db, exportSnippet);
    this.evaluations = new EvaluationsRepo(db);
    this.logs = new LogsRepo(db);
  }

  static open(
    file: string,
    exportSnippet?: (format: ExportFormat, outDir: string, files: Array<{ name: string; bytes: number }>) => string,
    options: OpenOptions = {},
  ): Store {
    return new Store(openDatabase(file, migrations, options), exportSnippet);
  }

  /** Apply pending migrations (an engine that takes a home over from a read-only start). */
  migrate(): void {
    migrate(this.db, migrations);
  }

  /** Everything one training step produced, all or nothing (quality.md "Reliability"). */
  writeStep(write: StepWrite): number[] {
    return this.db.transaction(() => {
      this.metrics.append(write.runId, write.step, write.metrics);
      const ids = write.rollouts.map((r) => this.rollouts.insert({ ...r, runId: write.runId, step: write.step }));
      this.runs.update(write.runId, { currentStep: write.step, ...write.run });
      return ids;
    })();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export { openDatabase, migrate, schemaVersion, StoreError } from './database';
export type { Db } from './database';
export type { NewRollout, NewTurn } from './rollouts';
export type { RunPatch } from './runs';

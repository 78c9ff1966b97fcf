/**
 * The experiment's cells and where they are kept. A cell is one finished piece of work: a trained
 * run with its training figures, or one evaluation of it. Each is appended to `cells.jsonl` in the
 * experiment's folder the moment it completes, so `envace experiment --resume DIR` skips what is
 * there and an interruption loses at most the cell in progress.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EvalResult } from '../../contract';
import { writeFileAtomicSync } from '../../../native-models/io/atomic';
import { KernelLock } from '../home/kernel-lock';
import type { Split, Variant } from './plan';
import { type Method, type Suite, SuiteError } from './suite';

export interface Count {
  errors: number;
  total: number;
}

/** Per RL step, means over the run's steps (ms); null where the figure was not logged. */
export interface StepTiming {
  steps: number;
  stepMs: number | null;
  /** Rollout phase: tokens_generated / tokens_per_s (the loops time their rollouts and log that rate). */
  rolloutMs: number | null;
  /** Σ envWallMs of the step's stored training rollouts (each episode times its env calls). */
  envMs: number | null;
  /** rolloutMs − envMs. */
  generationMs: number | null;
  /** stepMs − rolloutMs: advantages, the update(s), logging. */
  trainMs: number | null;
}

export interface CurveData {
  /** A metric key (`reward`, `reward/act`, `reward/rehearse`, `rwml/similarity`, `groups_with_signal`) or `reality-check`. */
  source: string;
  steps: number[];
  values: number[];
}

export interface RunCell {
  kind: 'run';
  key: string;
  env: string;
  seed: number;
  method: Method;
  runId: string;
  /** The run's last step (its evaluated checkpoint). */
  step: number;
  /** Env calls spent gathering demonstrations (the `gather_env_calls` metric). */
  gatherEnvCalls: number;
  /** Env calls of the run's training steps (sum of `env_calls`). */
  trainEnvCalls: number;
  trainWallMs: number;
  /** Mean of `groups_with_signal` over the run's steps; null for SFT. */
  groupsWithSignal: number | null;
  timing: StepTiming | null;
  curves: CurveData[];
  /** Reality check (mean similarity of imagined vs real observations) at the first and last RL step. */
  fidelityStart: number | null;
  fidelityEnd: number | null;
  /** Observations starting with "Error": imagined ones in training rollouts, real ones in training rollouts. */
  imaginedErrors: Count | null;
  realErrors: Count | null;
  /** On reality-checked rollouts: the imagined observation and the real one for the same action. */
  checkedErrors: { imagined: Count; real: Count } | null;
}

/** The figures an evaluation cell keeps, as the engine's evaluation reports them. */
export const EVAL_FIGURES = ['tasks', 'success', 'meanScore', 'invalidActionRate', 'envCallsPerTask', 'tokensPerTask', 'wallMs', 'fidelity'] as const;

/** One evaluation: its figures (fidelity: of the test-time rehearsals, null without) and where they came from. */
export type EvalCell = Pick<EvalResult, (typeof EVAL_FIGURES)[number]> & {
  kind: 'eval';
  key: string;
  env: string;
  seed: number;
  variant: Variant;
  split: Split;
  runId: string;
  step: number;
  /** With the suite's robustness evaluation: the largest drop of success under a perturbation; absent otherwise. */
  robustnessWorstDrop?: number;
};

export type Cell = RunCell | EvalCell;

export const CELLS_FILE = 'cells.jsonl';
/** The run the latest cell started training, by the cell's key: a resume goes on with it. */
export const IN_FLIGHT_FILE = 'in-flight.json';
/** Held (a kernel lock) by the one process working in the folder. */
const FOLDER_LOCK_FILE = 'experiment.lock.db';
export const EXPERIMENT_FILE = 'experiment.json';

/** What `experiment.json` holds: the suite as it was run, so a resume trains the same plan. */
export interface ExperimentHeader {
  version: 1;
  suite: Suite;
  createdAt: number;
}

/** `experiment.json`, or a SuiteError that names the file and what is wrong with it. */
function readHeader(file: string): ExperimentHeader {
  let header: ExperimentHeader;
  try {
    header = JSON.parse(fs.readFileSync(file, 'utf8')) as ExperimentHeader;
  } catch (error) {
    throw new SuiteError(`${file} cannot be read as an experiment (${(error as Error).message}); it is left as it is`);
  }
  if (!header || typeof header !== 'object' || header.version !== 1)
    throw new SuiteError(`${file}: unknown version ${String((header as { version?: unknown } | null)?.version)}`);
  if (!header.suite || typeof header.suite !== 'object') throw new SuiteError(`${file} holds no suite`);
  return header;
}

/** Reads the cells of a file; a line cut short by a crash mid-write is skipped, the rest kept. */
export function parseCells(text: string): Cell[] {
  const cells: Cell[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const cell = JSON.parse(line) as Cell;
      if ((cell.kind === 'run' || cell.kind === 'eval') && typeof cell.key === 'string') cells.push(cell);
    } catch {
      // Only the last line can be partial; it is the cell that was in progress, and is redone.
    }
  }
  return cells;
}

export class CellStore {
  private constructor(
    readonly dir: string,
    readonly header: ExperimentHeader,
    readonly cells: Cell[],
    private readonly lock: KernelLock,
  ) {}

  /** One process works in an experiment's folder at a time: two resumes would train every cell twice and both write the table. */
  private static lockFolder(dir: string): KernelLock {
    const lock = new KernelLock(path.join(dir, FOLDER_LOCK_FILE));
    const taken = lock.take();
    if (taken.state === 'held') throw new SuiteError(`another envace experiment is working in ${dir}; wait for it, or stop it and resume`);
    if (taken.state === 'unusable') throw new SuiteError(`${dir} cannot be worked in: ${taken.reason}`);
    return lock;
  }

  /** A new experiment in `dir`; refuses a folder that already holds one (that is what --resume is for). */
  static create(dir: string, suite: Suite, now = Date.now()): CellStore {
    if (fs.existsSync(path.join(dir, EXPERIMENT_FILE))) throw new SuiteError(`${dir} already holds an experiment; continue it with --resume ${dir}`);
    fs.mkdirSync(dir, { recursive: true });
    const lock = CellStore.lockFolder(dir);
    const header: ExperimentHeader = { version: 1, suite, createdAt: now };
    writeFileAtomicSync(path.join(dir, EXPERIMENT_FILE), `${JSON.stringify(header, null, 2)}\n`);
    return new CellStore(dir, header, [], lock);
  }

  /** The experiment in `dir` and the cells it finished. */
  static open(dir: string): CellStore {
    const file = path.join(dir, EXPERIMENT_FILE);
    if (!fs.existsSync(file)) throw new SuiteError(`${dir} holds no experiment (no ${EXPERIMENT_FILE})`);
    const header = readHeader(file);
    const lock = CellStore.lockFolder(dir);
    const cellsFile = path.join(dir, CELLS_FILE);
    return new CellStore(dir, header, fs.existsSync(cellsFile) ? parseCells(fs.readFileSync(cellsFile, 'utf8')) : [], lock);
  }

  /** The run that was training `key` when the last session stopped, if any. */
  inFlight(key: string): string | undefined {
    try {
      const held = JSON.parse(fs.readFileSync(path.join(this.dir, IN_FLIGHT_FILE), 'utf8')) as { key?: unknown; runId?: unknown };
      return held.key === key && typeof held.runId === 'string' ? held.runId : undefined;
    } catch {
      return undefined;
    }
  }

  setInFlight(key: string, runId: string): void {
    writeFileAtomicSync(path.join(this.dir, IN_FLIGHT_FILE), JSON.stringify({ key, runId }));
  }

  /** Let another process work in the folder (the process's exit does the same). */
  close(): void {
    this.lock.drop();
  }

  /** Appends one finished cell (one line, one write: a crash leaves at most that line partial). */
  append(cell: Cell): void {
    // A partial line left by a crash would swallow this one: start on a fresh line.
    const file = path.join(this.dir, CELLS_FILE);
    const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
    let lead = '';
    if (size > 0) {
      const fd = fs.openSync(file, 'r');
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      fs.closeSync(fd);
      if (last.toString() !== '\n') lead = '\n';
    }
    fs.appendFileSync(file, `${lead}${JSON.stringify(cell)}\n`);
    this.cells.push(cell);
  }
}

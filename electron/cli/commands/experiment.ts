import type { Command } from 'commander';
import path from 'node:path';
import { resolveHome } from '../../engine/home';
import { CellStore } from '../../engine/experiment/cells';
import { estimateSuite } from '../../engine/experiment/estimate';
import { renderHuman, summarize, writeReport } from '../../engine/experiment/report';
import { ExperimentCancelled, type ExperimentProgress, runExperiment } from '../../engine/experiment/runner';
import { SuiteError, suiteByName } from '../../engine/experiment/suite';
import { withEngine } from '../engine-session';
import { CliError, EXIT } from '../output';
import { createProgress } from '../progress';
import { forceQuitHint, onFirstStopSignal } from '../signals';
import { act, leaf, type CommonOptions } from './common';

interface ExperimentOptions extends CommonOptions {
  suite?: string;
  out?: string;
  resume?: string;
}

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
const eta = (ms: number | null) =>
  ms === null
    ? '…'
    : ms < 60_000
      ? `${Math.round(ms / 1000)}s`
      : `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;

export function progressLabel(p: ExperimentProgress): string {
  return `[${p.run}/${p.runs}] ${p.env} seed ${p.seed} · ${p.label} · step ${p.step}/${p.totalSteps}`;
}

/** With --json stdout is kept for the result: progress goes to stderr, one line per run step change at most every 5 s. */
function stderrProgress() {
  let last = 0;
  let lastRun = -1;
  return (p: ExperimentProgress) => {
    const now = Date.now();
    if (p.run === lastRun && now - last < 5000) return;
    last = now;
    lastRun = p.run;
    process.stderr.write(`${String(Math.floor(p.fraction * 100)).padStart(3)}%  ${progressLabel(p)}  eta ${eta(p.etaMs)}\n`);
  };
}

/** A new experiment's folder (--suite), or the one to go on with (--resume); usage errors say which flag. */
function openStore(opts: ExperimentOptions): CellStore {
  try {
    if (opts.resume !== undefined) {
      if (opts.suite !== undefined || opts.out !== undefined) throw new SuiteError('--resume DIR goes on with the suite and folder it names: drop --suite and --out');
      return CellStore.open(path.resolve(opts.resume));
    }
    if (opts.suite === undefined) throw new SuiteError('give --suite quick|full, or --resume DIR');
    const suite = suiteByName(opts.suite);
    return CellStore.create(path.resolve(opts.out ?? path.join(resolveHome(opts.home), 'experiments', stamp(new Date()))), suite);
  } catch (error) {
    if (error instanceof SuiteError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

export function registerExperiment(program: Command): void {
  leaf(
    program
      .command('experiment')
      .description('one SFT checkpoint per seed, every method from it on the same budget; prints the side-by-side table of paired differences'),
  )
    .option('--suite <suite>', 'quick (about 10 minutes on a quiet 2-core machine) | full (about 17 minutes)')
    .option('--out <dir>', 'where to keep the cells and write table.json, table.md and the curves (default <home>/experiments/<timestamp>)')
    .option('--resume <dir>', 'go on with the experiment in <dir>: what its cells.jsonl holds is not done again')
    .action(
      act<ExperimentOptions>(async (_args, opts, out) => {
        const store = openStore(opts);
        const suite = store.header.suite;
        const dir = store.dir;
        const bar = out.json ? null : createProgress(false);
        const onProgress = bar ? (p: ExperimentProgress) => bar.update(p.fraction, progressLabel(p), p.etaMs) : stderrProgress();
        const onLog = bar ? (line: string) => bar.log(line) : (line: string) => process.stderr.write(`${line}\n`);
        const estimate = estimateSuite(suite);
        onLog(
          `suite ${suite.name} in ${dir}: ${store.cells.length} cell(s) already done; the whole suite is estimated at ${Math.round(estimate.idleMinutes)} min on a quiet 2-core machine, ${Math.round(estimate.busyMinutes)} min on a busy one`,
        );
        const controller = new AbortController();
        // SIGTERM as Ctrl+C: the current run is cancelled at a step boundary and the table of what finished written.
        const offSignals = onFirstStopSignal((signal) => {
          onLog(`${signal}: cancelling the current run and stopping ${forceQuitHint(signal)}…`);
          controller.abort();
        });
        await withEngine(opts.home, async (api) => {
          let result;
          try {
            result = await runExperiment(api, suite, { onProgress, onLog, signal: controller.signal, done: store.cells, onCell: (cell) => store.append(cell), inFlight: { get: (key) => store.inFlight(key), set: (key, id) => store.setInFlight(key, id) } });
          } catch (error) {
            if (!(error instanceof ExperimentCancelled)) throw error;
            writeReport(dir, summarize(error.partial));
            throw new CliError(`experiment cancelled; the table of what finished is in ${dir}; go on with: envace experiment --resume ${dir}`, EXIT.error);
          } finally {
            offSignals();
            bar?.stop();
          }
          const summary = summarize(result);
          const files = writeReport(dir, summary);
          out.result({ ...summary, out: dir, files }, () =>
            [renderHuman(summary), '', `this session: ${(summary.wallMs / 60_000).toFixed(1)} min; table and curves in ${dir}`].join('\n'),
          );
          if (summary.failures.length)
            throw new CliError(`${summary.failures.length} cell(s) failed; the table shows what finished; retry them with: envace experiment --resume ${dir}`, EXIT.error);
        });
      }),
    );
}

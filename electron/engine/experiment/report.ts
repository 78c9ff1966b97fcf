/** The experiment's outputs: the JSON summary, table.json, table.md and the curves as SVG per env. */
import fs from 'node:fs';
import path from 'node:path';
import { type MeanCurve, type TableRow, aggregate, meanCurves } from './aggregate';
import type { Cell } from './cells';
import { SPREAD_NOTE, renderMarkdown, renderText } from './format';
import type { ExperimentResult, RunFailure } from './runner';
import { METHOD_LABELS } from './suite';
import { lineChart } from './svg';

export interface ExperimentSummary {
  suite: string;
  seeds: number[];
  /** Per env: model, SFT steps and tasks per evaluation. */
  envs: Array<{ env: string; preset: string; sftSteps: number; evalLimit: number }>;
  rlSteps: number;
  /** This session's wall time. */
  wallMs: number;
  spread: string;
  rows: TableRow[];
  curves: MeanCurve[];
  failures: RunFailure[];
  cells: Cell[];
}

export function summarize(result: ExperimentResult): ExperimentSummary {
  const s = result.suite;
  return {
    suite: s.name,
    seeds: s.seeds,
    envs: s.envs.map((e) => ({ env: e.env, preset: e.preset, sftSteps: e.sftSteps ?? s.sftSteps, evalLimit: e.evalLimit ?? s.evalLimit })),
    rlSteps: s.rlSteps,
    wallMs: result.wallMs,
    spread: SPREAD_NOTE,
    rows: aggregate(result.cells, s),
    curves: meanCurves(result.cells),
    failures: result.failures,
    cells: result.cells,
  };
}

/** One chart per env and curve: which metric sources it draws and its y label. */
const CHARTS = [
  { file: 'reward', title: 'training reward (mean over seeds)', y: 'reward', sources: ['reward'] },
  { file: 'reward-act', title: 'reward of the act role (mean over seeds)', y: 'reward', sources: ['reward/act'] },
  { file: 'reward-rehearse', title: 'reward of the rehearse role (mean over seeds)', y: 'reward', sources: ['reward/rehearse'] },
  { file: 'fidelity', title: 'world-model fidelity: imagined vs real observations', y: 'similarity', sources: ['reality-check', 'rwml/similarity'] },
] as const;

function seriesName(c: MeanCurve): string {
  return c.source === 'reality-check' || c.source === 'rwml/similarity' ? `${METHOD_LABELS[c.method]} (${c.source})` : METHOD_LABELS[c.method];
}

/** `<env>-reward.svg`, `<env>-reward-act.svg`, `<env>-reward-rehearse.svg`, `<env>-fidelity.svg`. */
export function charts(summary: ExperimentSummary): Array<{ file: string; svg: string }> {
  const envs = [...new Set(summary.rows.map((r) => r.env))];
  return envs.flatMap((env) =>
    CHARTS.map((chart) => ({
      file: `${env}-${chart.file}.svg`,
      svg: lineChart({
        title: `${env}: ${chart.title}`,
        xLabel: 'RL step (from the SFT checkpoint)',
        yLabel: chart.y,
        series: summary.curves
          .filter((c) => c.env === env && (chart.sources as readonly string[]).includes(c.source))
          .map((c) => ({ name: seriesName(c), points: c.steps.map((s, i) => [s, c.values[i]] as [number, number]) })),
      }),
    })),
  );
}

export function renderHuman(summary: ExperimentSummary): string {
  const lines = [renderText(summary.rows)];
  if (summary.failures.length)
    lines.push('', 'failed:', ...summary.failures.map((f) => `  ${f.env} seed ${f.seed} ${f.method}: ${f.error}`));
  return lines.join('\n');
}

/** Writes table.json, table.md and the charts; returns the paths written. */
export function writeReport(dir: string, summary: ExperimentSummary): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const files: Array<[string, string]> = [
    ['table.json', `${JSON.stringify(summary, null, 2)}\n`],
    ['table.md', renderMarkdown(summary.rows, `envace experiment — suite ${summary.suite}, seeds ${summary.seeds.join(', ')}`)],
    ...charts(summary).map((c) => [c.file, c.svg] as [string, string]),
  ];
  return files.map(([name, text]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  });
}

/** The experiment's outputs: the JSON summary, table.json, table.md and one SVG per env and curve kind. */
import fs from 'node:fs';
import path from 'node:path';
import { type MeanCurve, type TableRow, aggregate, meanCurves, variantOrder } from './aggregate';
import { SPREAD_NOTE, renderMarkdown, renderText } from './format';
import type { ExperimentResult, RunFailure } from './runner';
import { METHOD_LABELS } from './suite';
import { lineChart } from './svg';

export interface ExperimentSummary {
  suite: string;
  seeds: number[];
  /** Per env: model, SFT warm-start steps and held-out tasks per evaluation. */
  envs: Array<{ env: string; preset: string; sftSteps: number; evalLimit: number }>;
  rlSteps: number;
  wallMs: number;
  spread: string;
  rows: TableRow[];
  curves: MeanCurve[];
  failures: RunFailure[];
  measurements: ExperimentResult['measurements'];
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
    rows: aggregate(
      result.measurements,
      s.envs.map((e) => e.env),
      variantOrder(s),
    ),
    curves: meanCurves(result.curves),
    failures: result.failures,
    measurements: result.measurements,
  };
}

const KIND_TITLES = { reward: 'training reward (mean over seeds)', fidelity: 'world-model fidelity: imagined vs real observations' } as const;

function seriesName(c: MeanCurve): string {
  return c.kind === 'fidelity' ? `${METHOD_LABELS[c.method]} (${c.source})` : METHOD_LABELS[c.method];
}

/** One chart per env and curve kind: `<env>-reward.svg`, `<env>-fidelity.svg`. */
export function charts(summary: ExperimentSummary): Array<{ file: string; svg: string }> {
  const envs = [...new Set(summary.rows.map((r) => r.env))];
  return envs.flatMap((env) =>
    (['reward', 'fidelity'] as const).map((kind) => ({
      file: `${env}-${kind}.svg`,
      svg: lineChart({
        title: `${env}: ${KIND_TITLES[kind]}`,
        xLabel: 'RL step (after the SFT warm start)',
        yLabel: kind === 'reward' ? 'reward' : 'similarity',
        series: summary.curves
          .filter((c) => c.env === env && c.kind === kind)
          .map((c) => ({ name: seriesName(c), points: c.steps.map((s, i) => [s, c.values[i]] as [number, number]) })),
      }),
    })),
  );
}

export function renderHuman(summary: ExperimentSummary): string {
  const lines = [renderText(summary.rows)];
  if (summary.failures.length)
    lines.push('', 'failed runs:', ...summary.failures.map((f) => `  ${f.env} seed ${f.seed} ${f.methods.join('+')}: ${f.error}`));
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

/**
 * The side-by-side tables as aligned text (terminal) and as Markdown (table.md). Per env two
 * tables: results (success and the paired Δ against the seed's SFT checkpoint, held-out and
 * training tasks) and costs and diagnostics (env calls, step time, signal, fidelity, "Error" rates).
 */
import type { Delta, Stat, TableRow } from './aggregate';

/** "mean ± std", the mean alone for one seed, "—" for nothing measured. */
export function formatStat(stat: Stat | null, digits: number): string {
  if (!stat) return '—';
  const mean = stat.mean.toFixed(digits);
  return stat.std === null ? mean : `${mean} ± ${stat.std.toFixed(digits)}`;
}

/** A paired Δ with its sign and the sign per seed: "+0.050 ± 0.020 [++−]"; "—" for nothing. */
export function formatDelta(delta: Delta | null, digits: number): string {
  if (!delta) return '—';
  const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x).toFixed(digits)}`;
  const spread = delta.std === null ? '' : ` ± ${delta.std.toFixed(digits)}`;
  return `${signed(delta.mean)}${spread} [${delta.signs.join('')}]`;
}

/** "a → b" of two stats' means, "—" when both are missing. */
const arrow = (a: Stat | null, b: Stat | null, digits: number) =>
  a || b ? `${a ? a.mean.toFixed(digits) : '—'} → ${b ? b.mean.toFixed(digits) : '—'}` : '—';
const pair = (a: Stat | null, b: Stat | null, digits: number) =>
  a || b ? `${a ? a.mean.toFixed(digits) : '—'} / ${b ? b.mean.toFixed(digits) : '—'}` : '—';

export interface Column {
  title: string;
  cell: (r: TableRow) => string;
}

export const RESULT_COLUMNS: Column[] = [
  { title: 'method', cell: (r) => r.label },
  { title: 'seeds', cell: (r) => String(r.n) },
  { title: 'held-out success', cell: (r) => formatStat(r.heldout.success, 3) },
  { title: 'Δ held-out success', cell: (r) => formatDelta(r.heldout.deltaSuccess, 3) },
  { title: 'Δ held-out score', cell: (r) => formatDelta(r.heldout.deltaScore, 3) },
  { title: 'train success', cell: (r) => formatStat(r.train.success, 3) },
  { title: 'Δ train success', cell: (r) => formatDelta(r.train.deltaSuccess, 3) },
  { title: 'invalid (held-out)', cell: (r) => formatStat(r.heldout.invalidActionRate, 3) },
  // Issue 21's bar: at most 0.05 below the unperturbed held-out success ("—" when the suite does not run it).
  { title: 'robustness worst drop', cell: (r) => formatStat(r.robustnessWorstDrop, 3) },
];

export const COST_COLUMNS: Column[] = [
  { title: 'method', cell: (r) => r.label },
  { title: 'data env calls', cell: (r) => formatStat(r.gatherEnvCalls, 0) },
  { title: 'train env calls', cell: (r) => formatStat(r.trainEnvCalls, 0) },
  { title: 'test env calls/task', cell: (r) => formatStat(r.testEnvCallsPerTask, 2) },
  { title: 'groups w/ signal', cell: (r) => formatStat(r.groupsWithSignal, 2) },
  { title: 's/RL step', cell: (r) => formatStat(r.stepS, 2) },
  { title: 'gen s', cell: (r) => formatStat(r.generationS, 2) },
  { title: 'env s', cell: (r) => formatStat(r.envS, 3) },
  { title: 'train s', cell: (r) => formatStat(r.trainS, 2) },
  { title: 'fidelity start → end', cell: (r) => arrow(r.fidelityStart, r.fidelityEnd, 3) },
  { title: '"Error" imagined', cell: (r) => formatStat(r.imaginedErrorRate, 3) },
  { title: '"Error" real', cell: (r) => formatStat(r.realErrorRate, 3) },
  { title: '"Error" checked imagined / real', cell: (r) => pair(r.checkedImaginedErrorRate, r.checkedRealErrorRate, 3) },
  { title: 'TT fidelity', cell: (r) => formatStat(r.testTimeFidelity, 3) },
  { title: 'tokens/task', cell: (r) => formatStat(r.tokensPerTask, 0) },
  { title: 'eval s', cell: (r) => formatStat(r.evalWallS, 1) },
];

function byEnv(rows: readonly TableRow[]): Map<string, TableRow[]> {
  const groups = new Map<string, TableRow[]>();
  for (const r of rows) groups.set(r.env, [...(groups.get(r.env) ?? []), r]);
  return groups;
}

function aligned(cells: string[][]): string {
  const widths = cells[0].map((_, c) => Math.max(...cells.map((row) => [...row[c]].length)));
  return cells
    .map((row) =>
      row
        .map((cell, c) => cell + ' '.repeat(widths[c] - [...cell].length))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export const SPREAD_NOTE =
  'mean ± sample std over seeds (n − 1; one seed shows the mean alone); Δ = method − the same seed’s SFT checkpoint, [signs per seed]; ' +
  'step time split: rollout phase = tokens_generated / tokens_per_s, env = Σ envWallMs of the step’s rollouts, gen = rollout − env, train = step − rollout';

const TABLES: Array<[string, Column[]]> = [
  ['results', RESULT_COLUMNS],
  ['costs and diagnostics', COST_COLUMNS],
];

export function renderText(rows: readonly TableRow[]): string {
  const parts: string[] = [];
  for (const [env, group] of byEnv(rows)) {
    for (const [name, columns] of TABLES)
      parts.push(`${env} — ${name}`, aligned([columns.map((c) => c.title), ...group.map((r) => columns.map((c) => c.cell(r)))]), '');
  }
  parts.push(SPREAD_NOTE);
  return parts.join('\n');
}

const mdCell = (s: string) => s.replace(/\|/g, '\\|');

export function renderMarkdown(rows: readonly TableRow[], title: string): string {
  const parts = [`# ${title}`, ''];
  for (const [env, group] of byEnv(rows)) {
    parts.push(`## ${env}`, '');
    for (const [name, columns] of TABLES) {
      parts.push(`### ${name}`, '', `| ${columns.map((c) => mdCell(c.title)).join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`);
      for (const r of group) parts.push(`| ${columns.map((c) => mdCell(c.cell(r))).join(' | ')} |`);
      parts.push('');
    }
  }
  parts.push(`_${SPREAD_NOTE}._`, '');
  return parts.join('\n');
}

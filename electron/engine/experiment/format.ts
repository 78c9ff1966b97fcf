/** The side-by-side table as aligned text (terminal) and as Markdown (table.md). */
import type { Stat, TableRow } from './aggregate';

/** "mean ± std", the mean alone for one seed, "—" for nothing measured. */
export function formatStat(stat: Stat | null, digits: number): string {
  if (!stat) return '—';
  const mean = stat.mean.toFixed(digits);
  return stat.std === null ? mean : `${mean} ± ${stat.std.toFixed(digits)}`;
}

export const COLUMNS: Array<{ title: string; cell: (r: TableRow) => string }> = [
  { title: 'method', cell: (r) => r.label },
  { title: 'seeds', cell: (r) => String(r.n) },
  { title: 'SFT start', cell: (r) => (r.n ? r.warmStart : '—') },
  { title: 'success', cell: (r) => formatStat(r.success, 3) },
  { title: 'score', cell: (r) => formatStat(r.score, 3) },
  { title: 'invalid', cell: (r) => formatStat(r.invalidActionRate, 3) },
  { title: 'data env calls', cell: (r) => formatStat(r.gatherEnvCalls, 0) },
  { title: 'train env calls', cell: (r) => formatStat(r.trainEnvCalls, 0) },
  { title: 'test env calls/task', cell: (r) => formatStat(r.testEnvCallsPerTask, 2) },
  { title: 'tokens/task', cell: (r) => formatStat(r.tokensPerTask, 0) },
  { title: 'WM fidelity', cell: (r) => formatStat(r.fidelity, 3) },
  { title: 'train s', cell: (r) => formatStat(r.trainWallS, 1) },
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

export const SPREAD_NOTE = 'mean ± sample std over seeds (n − 1); one seed shows the mean alone';

export function renderText(rows: readonly TableRow[]): string {
  const parts: string[] = [];
  for (const [env, group] of byEnv(rows)) {
    parts.push(`${env}`, aligned([COLUMNS.map((c) => c.title), ...group.map((r) => COLUMNS.map((c) => c.cell(r)))]), '');
  }
  parts.push(SPREAD_NOTE);
  return parts.join('\n');
}

const mdCell = (s: string) => s.replace(/\|/g, '\\|');

export function renderMarkdown(rows: readonly TableRow[], title: string): string {
  const parts = [`# ${title}`, ''];
  for (const [env, group] of byEnv(rows)) {
    parts.push(`## ${env}`, '', `| ${COLUMNS.map((c) => c.title).join(' | ')} |`, `|${COLUMNS.map(() => '---').join('|')}|`);
    for (const r of group) parts.push(`| ${COLUMNS.map((c) => mdCell(c.cell(r))).join(' | ')} |`);
    parts.push('');
  }
  parts.push(`_${SPREAD_NOTE}._`, '');
  return parts.join('\n');
}

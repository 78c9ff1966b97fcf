import { createColumnHelper, flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type SortingState } from '@tanstack/react-table';
import { useState } from 'react';
import type { Run } from '../../../../electron/contract';
import { routeHref } from '../../app/routes';
import { RelativeTime } from '../../components/RelativeTime';
import { StatusBadge } from '../../components/StatusBadge';
import { formatDuration, formatPercent } from '../../format/units';
import { RunActions } from './RunActions';
import { failureSummary } from './run-actions';

const column = createColumnHelper<Run>();

function Progress({ run }: { run: Run }) {
  const fraction = run.totalSteps > 0 ? Math.min(1, run.currentStep / run.totalSteps) : 0;
  const live = run.status === 'running' || run.status === 'queued';
  return (
    <div className="progress-cell">
      <progress max={1} value={fraction} aria-label={`step ${run.currentStep} of ${run.totalSteps}`} />
      <span className="numeric">
        {run.currentStep}/{run.totalSteps}
      </span>
      {live && run.etaMs !== null && <span className="muted">ETA {formatDuration(run.etaMs)}</span>}
    </div>
  );
}

/** The badge, and for a failed or stopped run the reason: one truncated line, the whole text on hover and behind "why". */
function Status({ run }: { run: Run }) {
  const [open, setOpen] = useState(false);
  if (!run.error) return <StatusBadge status={run.status} />;
  const summary = failureSummary(run.error);
  return (
    <div className="row">
      <StatusBadge status={run.status} />
      <span className="run-error" title={run.error} data-testid="run-error">
        {open ? run.error : summary}
      </span>
      {(summary !== run.error || open) && (
        <button type="button" className="button button-small" onClick={() => setOpen((o) => !o)} aria-expanded={open} aria-label={`${open ? 'Hide' : 'Show'} the full error of ${run.name}`}>
          {open ? 'less' : 'more'}
        </button>
      )}
    </div>
  );
}

const columns = [
  column.accessor('name', {
    header: 'Name',
    cell: (c) => (
      <div className="name-cell">
        <a href={routeHref('dashboard', { run: c.row.original.id })}>{c.getValue()}</a>
        <span className="muted mono">{c.row.original.id}</span>
      </div>
    ),
  }),
  column.accessor('env', { header: 'Env' }),
  column.accessor('algo', { header: 'Method', cell: (c) => <code>{c.getValue()}</code> }),
  column.accessor('model', { header: 'Model' }),
  column.accessor('status', { header: 'Status', cell: (c) => <Status run={c.row.original} /> }),
  column.accessor((run) => (run.totalSteps > 0 ? run.currentStep / run.totalSteps : 0), { id: 'progress', header: 'Progress', cell: (c) => <Progress run={c.row.original} /> }),
  column.accessor('bestHeldoutSuccess', {
    header: 'Best held-out',
    cell: (c) => <span className="numeric">{formatPercent(c.getValue())}</span>,
  }),
  column.accessor((run) => trainingTime(run), {
    id: 'duration',
    header: 'Took',
    cell: (c) => <span className="numeric">{c.getValue() === null ? '—' : formatDuration(c.getValue()!)}</span>,
  }),
  column.accessor('createdAt', { header: 'Created', cell: (c) => <RelativeTime time={c.getValue()} /> }),
];

/** Wall time from start to finish (to now while it trains); null before it starts. */
function trainingTime(run: Run): number | null {
  if (run.startedAt === null) return null;
  return (run.finishedAt ?? (run.status === 'running' ? Date.now() : run.updatedAt)) - run.startedAt;
}

interface RunsTableProps {
  runs: Run[];
  selected: ReadonlySet<string>;
  onToggle: (run: Run) => void;
  onDelete: (run: Run) => void;
  onFork: (run: Run) => void;
  /** After start / cancel / resume, so the row shows the new status at once. */
  onChanged: () => void;
}

/** The runs table: a selection box per row (to compare), sortable columns (click or Enter on a header), the actions each run's status allows. */
export function RunsTable({ runs, selected, onToggle, onDelete, onFork, onChanged }: RunsTableProps) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useReactTable({
    data: runs,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (run) => run.id,
  });

  return (
    <div className="table-wrap">
      <table className="table" data-testid="runs-table">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              <th className="select-cell">
                <span className="sr-only">Select to compare</span>
              </th>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                return (
                  <th key={header.id} aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}>
                    <button type="button" className="th-button" onClick={header.column.getToggleSortingHandler()}>
                      {flexRender(header.column.columnDef.header, header.getContext())}
                      <span aria-hidden="true">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}</span>
                    </button>
                  </th>
                );
              })}
              <th className="actions-cell">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-run-id={row.id} className={selected.has(row.id) ? 'selected' : undefined}>
              <td className="select-cell">
                <input type="checkbox" checked={selected.has(row.id)} onChange={() => onToggle(row.original)} aria-label={`Select run ${row.original.name} to compare`} />
              </td>
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
              ))}
              <td className="actions-cell">
                <RunActions run={row.original} onDelete={onDelete} onFork={onFork} onChanged={onChanged} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

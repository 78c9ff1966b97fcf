import { useState } from 'react';
import { RunStatus, type Run } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { navigate } from '../../app/useHashRoute';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { useCall } from '../../hooks/useCall';
import { useThrottledEvents } from '../../hooks/useEvents';
import { ForkDialog } from './ForkDialog';
import { QuickStart } from './QuickStart';
import { RunsTable } from './RunsTable';

export function RunsView() {
  const api = useApi();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<RunStatus | ''>('');
  const filtered = search.trim() !== '' || status !== '';
  const runs = useCall('runs.list', { search: search.trim() || undefined, status: status || undefined, limit: 500 });
  useThrottledEvents(['run.status', 'run.progress'], runs.reload, 500);

  const [doomed, setDoomed] = useState<Run | null>(null);
  const [forking, setForking] = useState<Run | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const closeDialog = () => {
    setDoomed(null);
    setDeleteError(null);
  };
  const confirmDelete = async () => {
    if (!doomed) return;
    setDeleting(true);
    try {
      await api.call('runs.delete', { id: doomed.id });
      closeDialog();
      runs.reload();
    } catch (error) {
      setDeleteError(error);
    } finally {
      setDeleting(false);
    }
  };

  const items = runs.data?.items ?? [];
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  // Only runs still listed count: a deleted or filtered-out run drops out of the comparison.
  const selected = new Set(items.filter((r) => picked.has(r.id)).map((r) => r.id));
  const toggle = (run: Run) =>
    setPicked((current) => {
      const next = new Set(current);
      if (next.has(run.id)) next.delete(run.id);
      else next.add(run.id);
      return next;
    });
  const compare = () => {
    const [first, ...rest] = items.filter((r) => selected.has(r.id)).map((r) => r.id);
    navigate(routeHref('dashboard', { run: first, compare: rest.join(',') }));
  };
  const anyCreated = items.some((r) => r.status === 'created');
  const showEmpty = runs.data !== undefined && runs.data.total === 0 && !filtered;

  return (
    <>
      <PageHeader
        title="Runs"
        subtitle={runs.data ? `${runs.data.total} run${runs.data.total === 1 ? '' : 's'}` : undefined}
        actions={
          <a className="button button-primary" href="#/new">
            New run
          </a>
        }
      />
      {runs.error ? <ErrorNotice error={runs.error} onRetry={runs.reload} /> : null}
      {showEmpty ? (
        <QuickStart onCreated={runs.reload} />
      ) : (
        <>
          <div className="toolbar" role="search">
            <label className="field-inline">
              <span>Search</span>
              <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="name, id, env or method" data-testid="runs-search" />
            </label>
            <label className="field-inline">
              <span>Status</span>
              <select value={status} onChange={(e) => setStatus(e.target.value as RunStatus | '')} data-testid="runs-status">
                <option value="">any</option>
                {RunStatus.options.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" className="button" onClick={compare} disabled={selected.size < 2} data-testid="compare" title="Select two or more runs to overlay their curves">
              Compare selected{selected.size > 0 ? ` (${selected.size})` : ''}
            </button>
          </div>
          {anyCreated && (
            <p className="notice notice-info">
              Runs marked <em>created</em> are stored with their resolved config and wait for <strong>Start</strong>. Training runs one job at a time
              on this machine; the others queue.
            </p>
          )}
          {runs.data === undefined && !runs.error ? (
            <Loading what="runs" />
          ) : items.length === 0 && filtered ? (
            <p className="muted" data-testid="runs-no-match">
              No run matches these filters.
            </p>
          ) : (
            <RunsTable runs={items} selected={selected} onToggle={toggle} onDelete={setDoomed} onFork={setForking} onChanged={runs.reload} />
          )}
        </>
      )}
      {forking && (
        <ForkDialog
          run={forking}
          onCancel={() => setForking(null)}
          onDone={(child) => {
            setForking(null);
            navigate(routeHref('dashboard', { run: child.id }));
          }}
        />
      )}
      <ConfirmDialog
        open={doomed !== null}
        title="Delete this run?"
        confirmLabel="Delete run"
        busy={deleting}
        error={deleteError ? <ErrorNotice error={deleteError} /> : null}
        onConfirm={confirmDelete}
        onCancel={closeDialog}
      >
        <p>
          <strong>{doomed?.name}</strong> ({doomed?.id}) will be removed with its metrics, rollouts and checkpoint files. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}

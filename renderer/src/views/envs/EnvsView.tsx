import { routeHref } from '../../app/routes';
import { EmptyState, ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { useCall } from '../../hooks/useCall';
import { navigate } from '../../app/useHashRoute';
import { AddMcpForm } from './AddMcpForm';
import { EnvDetailPanel, TaskCounts } from './EnvDetailPanel';

export function EnvsView({ selected, adding }: { selected?: string; adding?: boolean }) {
  const envs = useCall('envs.list', {});
  const items = envs.data?.items ?? [];
  const problems = envs.data?.problems ?? [];
  return (
    <>
      <PageHeader
        title="Environments"
        subtitle="Where agents act: tools with JSON Schemas, and tasks split into train, held-out and OOD"
        actions={
          !adding && (
            <a className="button" href={routeHref('envs', { id: selected, add: '1' })} data-testid="add-mcp">
              Add an MCP server
            </a>
          )
        }
      />
      {adding && (
        <AddMcpForm
          onAdded={(env) => {
            envs.reload();
            navigate(routeHref('envs', { id: env.id }));
          }}
          onClose={() => navigate(routeHref('envs', { id: selected }))}
        />
      )}
      {problems.length > 0 && (
        <div className="notice notice-warn" role="alert" data-testid="envs-problems">
          <strong>Saved MCP servers need attention</strong>
          <ul className="envs-problems">
            {problems.map((problem, i) => (
              <li key={i} className="wrap-anywhere">
                {problem}
              </li>
            ))}
          </ul>
          <p>The environments listed below are not affected.</p>
        </div>
      )}
      {envs.error ? <ErrorNotice error={envs.error} onRetry={envs.reload} /> : null}
      {!envs.data && !envs.error && <Loading what="environments" />}
      {envs.data && items.length === 0 && (
        <EmptyState title="No environments registered" testId="envs-empty">
          <p>
            This engine has no environments registered. Add your own MCP server with a task file (the button above); it is listed here with its
            tools and task counts.
          </p>
        </EmptyState>
      )}
      {items.length > 0 && (
        <div className="split">
          <ul className="list" aria-label="Environments" data-testid="envs-list">
            {items.map((env) => (
              <li key={env.id}>
                <a href={routeHref('envs', { id: env.id })} aria-current={env.id === selected ? 'true' : undefined} className="list-item">
                  <span className="list-title">
                    {env.id} <span className="badge badge-neutral">{env.track}</span>
                    {env.unavailable !== undefined && <span className="badge badge-bad">unavailable</span>}
                  </span>
                  <span className="muted">{env.description}</span>
                  {env.unavailable !== undefined ? (
                    <span className="muted">Cannot be used: open it to see why.</span>
                  ) : (
                    <span className="muted">
                      {env.toolCount} tools · <TaskCounts counts={env.taskCounts} />
                    </span>
                  )}
                  {env.reset && <span className="muted env-reset-line">Between episodes: {env.reset}</span>}
                </a>
              </li>
            ))}
          </ul>
          <div>
            {selected ? (
              <EnvDetailPanel
                key={selected}
                id={selected}
                summary={items.find((e) => e.id === selected)}
                onRemoved={() => {
                  envs.reload();
                  navigate(routeHref('envs'));
                }}
              />
            ) : (
              <p className="muted">Pick an environment to see its tools and their schemas.</p>
            )}
          </div>
        </div>
      )}
    </>
  );
}

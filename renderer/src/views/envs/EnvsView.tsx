import type { EnvSummary } from '../../../../electron/contract';
import { routeHref } from '../../app/routes';
import { CodeView } from '../../components/CodeView';
import { EmptyState, ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { useCall } from '../../hooks/useCall';
import { navigate } from '../../app/useHashRoute';
import { AddMcpForm } from './AddMcpForm';
import { ToolConsole } from './ToolConsole';

function TaskCounts({ counts }: { counts: EnvSummary['taskCounts'] }) {
  return (
    <span className="task-counts">
      <span title="training tasks">{counts.train} train</span>
      <span title="held-out tasks (evaluation)">{counts.heldout} held-out</span>
      <span title="out-of-distribution tasks">{counts.ood} OOD</span>
    </span>
  );
}

function EnvDetailPanel({ id }: { id: string }) {
  const env = useCall('envs.get', { id });
  if (env.error) return <ErrorNotice error={env.error} onRetry={env.reload} />;
  if (!env.data) return <Loading what={`environment ${id}`} />;
  const d = env.data;
  return (
    <section className="card" aria-labelledby="env-detail" data-testid="env-detail">
      <h2 id="env-detail">{d.id}</h2>
      <p>{d.description}</p>
      <p className="muted">
        Track <strong>{d.track}</strong> · <TaskCounts counts={d.taskCounts} />
      </p>
      <h3>Tools ({d.tools.length})</h3>
      {d.tools.map((tool) => (
        <details key={tool.name} className="tool">
          <summary>
            <code>{tool.name}</code> <span className="muted">{tool.description}</span>
          </summary>
          <CodeView value={tool.parameters} label={`JSON Schema of ${tool.name}'s parameters`} />
        </details>
      ))}
      <ToolConsole key={d.id} env={d} />
    </section>
  );
}

export function EnvsView({ selected, adding }: { selected?: string; adding?: boolean }) {
  const envs = useCall('envs.list', {});
  const items = envs.data?.items ?? [];
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
                  </span>
                  <span className="muted">{env.description}</span>
                  <span className="muted">
                    {env.toolCount} tools · <TaskCounts counts={env.taskCounts} />
                  </span>
                </a>
              </li>
            ))}
          </ul>
          <div>{selected ? <EnvDetailPanel id={selected} /> : <p className="muted">Pick an environment to see its tools and their schemas.</p>}</div>
        </div>
      )}
    </>
  );
}

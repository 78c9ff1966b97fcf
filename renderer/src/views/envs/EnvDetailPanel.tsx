import type { EnvSummary } from '../../../../electron/contract';
import { CodeView } from '../../components/CodeView';
import { ErrorNotice, Loading } from '../../components/Notice';
import { useCall } from '../../hooks/useCall';
import { EnvTestPanel, RemoveEnvButton } from './McpActions';
import { ToolConsole } from './ToolConsole';

export function TaskCounts({ counts }: { counts: EnvSummary['taskCounts'] }) {
  return (
    <span className="task-counts">
      <span title="training tasks">{counts.train} train</span>
      <span title="held-out tasks (evaluation)">{counts.heldout} held-out</span>
      <span title="out-of-distribution tasks">{counts.ood} OOD</span>
    </span>
  );
}

/** A registration the engine cannot build: its reason in full instead of tools, and the way out. */
function UnavailablePanel({ env, onRemoved }: { env: EnvSummary; onRemoved: () => void }) {
  return (
    <section className="card" aria-labelledby="env-detail" data-testid="env-detail">
      <div className="env-detail-head">
        <h2 id="env-detail">{env.id}</h2>
        <span className="badge badge-bad">unavailable</span>
      </div>
      {env.description && <p>{env.description}</p>}
      <div className="notice notice-error" data-testid="env-unavailable">
        <strong>This environment cannot be used</strong>
        <p className="wrap-anywhere">{env.unavailable}</p>
        <p>Runs cannot pick it. Remove it, then add it again once what the reason names is fixed.</p>
      </div>
      <div className="row">
        <RemoveEnvButton id={env.id} onRemoved={onRemoved} />
      </div>
    </section>
  );
}

/**
 * One environment: its tools and their schemas, how episodes are kept apart, and a console;
 * for a user's MCP server also the end-to-end check and Remove. `summary` is its entry in the
 * list (absent while the list loads or for an id it does not hold).
 */
export function EnvDetailPanel({ id, summary, onRemoved }: { id: string; summary?: EnvSummary; onRemoved: () => void }) {
  const unavailable = summary?.unavailable !== undefined;
  // An unavailable registration cannot be built, so there is nothing to get: the list's reason is the whole story.
  const env = useCall('envs.get', unavailable ? null : { id });
  if (summary && unavailable) return <UnavailablePanel env={summary} onRemoved={onRemoved} />;
  if (env.error) return <ErrorNotice error={env.error} onRetry={env.reload} />;
  if (!env.data) return <Loading what={`environment ${id}`} />;
  const d = env.data;
  const mine = d.track === 'mcp';
  return (
    <section className="card" aria-labelledby="env-detail" data-testid="env-detail">
      <div className="env-detail-head">
        <h2 id="env-detail">{d.id}</h2>
        {mine && <RemoveEnvButton id={d.id} onRemoved={onRemoved} />}
      </div>
      <p>{d.description}</p>
      <p className="muted">
        Track <strong>{d.track}</strong> · <TaskCounts counts={d.taskCounts} />
      </p>
      {d.reset && (
        <p className="muted wrap-anywhere" data-testid="env-reset">
          Between episodes: {d.reset}
        </p>
      )}
      {mine && <EnvTestPanel id={d.id} />}
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

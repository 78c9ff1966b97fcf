import { useState } from 'react';
import type { EnvDetail, MethodInput } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { ErrorNotice } from '../../components/Notice';
import { formatNumber } from '../../format/units';
import { argumentSkeleton, parseToolArguments } from './tool-arguments';

interface CallResult {
  observation: string;
  ok: boolean;
  wallMs: number;
}

/** Call one tool by hand in a fresh episode (envs.call) and see what the environment answers. */
export function ToolConsole({ env }: { env: EnvDetail }) {
  const api = useApi();
  const [toolName, setToolName] = useState(env.tools[0]?.name ?? '');
  const tool = env.tools.find((t) => t.name === toolName);
  const [args, setArgs] = useState(() => JSON.stringify(tool ? argumentSkeleton(tool.parameters) : {}, null, 2));
  const [taskId, setTaskId] = useState('');
  const [result, setResult] = useState<CallResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const parsed = parseToolArguments(args);

  if (env.tools.length === 0) return <p className="muted">This environment exposes no tools to call.</p>;

  const pickTool = (name: string) => {
    setToolName(name);
    const next = env.tools.find((t) => t.name === name);
    setArgs(JSON.stringify(next ? argumentSkeleton(next.parameters) : {}, null, 2));
    setResult(null);
    setError(null);
  };

  const call = async () => {
    if (!parsed.ok) return;
    setBusy(true);
    setError(null);
    try {
      setResult(await api.call('envs.call', { env: env.id, tool: toolName, arguments: parsed.value as MethodInput<'envs.call'>['arguments'], taskId: taskId.trim() || undefined }));
    } catch (e) {
      setResult(null);
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="console" aria-labelledby="console-title" data-testid="tool-console">
      <h3 id="console-title">Console</h3>
      <p className="muted">Each call runs in a fresh episode{taskId.trim() ? ` of task ${taskId.trim()}` : ''}; nothing is stored.</p>
      <div className="filters">
        <label className="field-inline">
          <span>Tool</span>
          <select value={toolName} onChange={(e) => pickTool(e.target.value)} data-testid="console-tool">
            {env.tools.map((t) => (
              <option key={t.name}>{t.name}</option>
            ))}
          </select>
        </label>
        <label className="field-inline">
          <span>Task (optional)</span>
          <input type="text" value={taskId} onChange={(e) => setTaskId(e.target.value)} placeholder="task id" />
        </label>
      </div>
      <label className="console-args">
        <span className="muted">Arguments (JSON object)</span>
        <textarea className="mono" rows={6} value={args} onChange={(e) => setArgs(e.target.value)} spellCheck={false} aria-invalid={parsed.ok ? undefined : true} data-testid="console-args" />
      </label>
      {!parsed.ok && (
        <p className="knob-issue" role="alert">
          {parsed.issue}
        </p>
      )}
      <div className="row">
        <button type="button" className="button button-primary" onClick={call} disabled={busy || !parsed.ok} data-testid="console-call">
          {busy ? 'Calling…' : `Call ${toolName}`}
        </button>
      </div>
      {error ? <ErrorNotice error={error} /> : null}
      {result && (
        // ok comes from envs.call: an "Error: …" answer (a rejected call, a tool's isError) is shown as the failure it is.
        <div className={result.ok ? 'console-result' : 'console-result console-result-error'} data-testid="console-result" data-ok={result.ok}>
          <p>
            <span className={`badge ${result.ok ? 'badge-good' : 'badge-bad'}`}>{result.ok ? 'ok' : 'error'}</span>{' '}
            {!result.ok && <span className="console-error-label">the call failed; this is what the agent would see</span>}{' '}
            <span className="muted">{formatNumber(Number(result.wallMs.toFixed(2)))} ms</span>
          </p>
          <pre className="turn-text">{result.observation}</pre>
        </div>
      )}
    </section>
  );
}

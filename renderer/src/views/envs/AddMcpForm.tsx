import { useState, type FormEvent } from 'react';
import type { EnvSummary } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { describeError } from '../../api/errors';
import { ErrorNotice } from '../../components/Notice';
import { useCall } from '../../hooks/useCall';
import { EnvVarRows, Field, ResetPolicyFields } from './McpFields';
import { buildAddMcpInput, emptyMcpForm, engineErrorField, type McpField, type McpFormValues, type McpIssues } from './mcp-form';

/**
 * Add a user's MCP server with a task file as an environment. The engine starts the server and
 * checks the task file against its tools before saving; a refusal is shown at the field it is about.
 */
export function AddMcpForm({ onAdded, onClose }: { onAdded: (env: EnvSummary) => void; onClose: () => void }) {
  const api = useApi();
  const info = useCall('system.info', {});
  const [values, setValues] = useState<McpFormValues>(emptyMcpForm);
  const [submitted, setSubmitted] = useState(false);
  const [remote, setRemote] = useState<{ field: McpField | null; error: unknown } | null>(null);
  const [busy, setBusy] = useState(false);
  const local = buildAddMcpInput(values);
  const issues: McpIssues = submitted && !local.ok ? local.issues : {};
  const remoteText = remote ? describeError(remote.error).detail : undefined;
  const issueFor = (field: McpField) => (remote?.field === field ? remoteText : issues[field]);
  const update = (patch: Partial<McpFormValues>) => {
    setValues((v) => ({ ...v, ...patch }));
    setRemote(null);
  };
  const set = (key: keyof McpFormValues, value: string) => update({ [key]: value });
  const dataHome = info.data?.dataHome;
  // A URL with "restart" still picked (it was the default) is said at once, not only after Add.
  const resetIssue = issueFor('reset') ?? (values.transport === 'http' && values.reset === 'restart' && !local.ok ? local.issues.reset : undefined);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!local.ok) return;
    setBusy(true);
    setRemote(null);
    try {
      onAdded(await api.call('envs.addMcp', local.value));
    } catch (error) {
      setRemote({ field: engineErrorField(error), error });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card mcp-form" onSubmit={submit} aria-labelledby="add-mcp-title" data-testid="add-mcp-form" noValidate>
      <h2 id="add-mcp-title">Add an MCP server</h2>
      <p className="muted">
        Its tools become an environment; the task file says what agents should do with them and how each attempt is scored, and the reset policy how
        episodes are kept from seeing each other's changes.
      </p>
      <Field label="Environment id" issue={issueFor('id')} hint="Letters, digits and . _ : @ / -; shown in the list and picked in New run.">
        <input type="text" value={values.id} onChange={(e) => set('id', e.target.value)} data-testid="mcp-id" aria-invalid={issueFor('id') ? true : undefined} />
      </Field>
      <Field label="Description (optional)" issue={issueFor('description')}>
        <input type="text" value={values.description} onChange={(e) => set('description', e.target.value)} data-testid="mcp-description" />
      </Field>
      <fieldset className="segmented" aria-label="How the server is reached">
        <label>
          <input type="radio" name="mcp-transport" checked={values.transport === 'stdio'} onChange={() => set('transport', 'stdio')} />a command (stdio)
        </label>
        <label>
          <input type="radio" name="mcp-transport" checked={values.transport === 'http'} onChange={() => set('transport', 'http')} />a URL (streamable HTTP)
        </label>
      </fieldset>
      {values.transport === 'stdio' ? (
        <>
          <Field label="Command and arguments" issue={issueFor('server')} hint="Started directly, not through a shell; quote arguments that contain spaces.">
            <input type="text" className="mono" value={values.commandLine} onChange={(e) => set('commandLine', e.target.value)} placeholder="npx -y @modelcontextprotocol/server-filesystem /data" data-testid="mcp-command" aria-invalid={issueFor('server') ? true : undefined} />
          </Field>
          <EnvVarRows rows={values.envRows} issue={issueFor('env')} onChange={(envRows) => update({ envRows })} />
          <Field
            label="Working folder (optional)"
            issue={issueFor('cwd')}
            hint={
              <>
                Where the server process starts; blank: the workbench's own. <code>{'{episode_dir}'}</code> starts it in the episode's folder.
              </>
            }
          >
            <input type="text" className="mono" value={values.cwd} onChange={(e) => set('cwd', e.target.value)} placeholder="{episode_dir}" data-testid="mcp-cwd" aria-invalid={issueFor('cwd') ? true : undefined} />
          </Field>
        </>
      ) : (
        <Field label="Server URL" issue={issueFor('server')}>
          <input type="url" className="mono" value={values.url} onChange={(e) => set('url', e.target.value)} placeholder="http://127.0.0.1:3001/mcp" data-testid="mcp-url" aria-invalid={issueFor('server') ? true : undefined} />
        </Field>
      )}
      <ResetPolicyFields values={values} issue={resetIssue} dataHome={dataHome} onChange={update} />
      <Field
        label="Task file (JSON Lines)"
        issue={issueFor('taskFile')}
        hint={
          <>
            One task a line: <code>{'{"id", "instruction", "split"?, "checklist": [{"kind": "call", "weight", "name", "arguments"?} | {"kind": "answer", "weight", "expected": […]}], "gold"?, "maxTurns"?}'}</code>. From
            the workbench window it must sit inside the data home{dataHome ? <> (<code>{dataHome}</code>)</> : null}; it is copied into the home when the
            environment is added, so later edits to your file change nothing.
          </>
        }
      >
        <input type="text" className="mono" value={values.taskFile} onChange={(e) => set('taskFile', e.target.value)} placeholder={dataHome ? `${dataHome}/tasks.jsonl` : 'tasks.jsonl'} data-testid="mcp-task-file" aria-invalid={issueFor('taskFile') ? true : undefined} />
      </Field>
      <div className="filters">
        <Field label="Call timeout (ms)" issue={issueFor('timeoutMs')}>
          <input type="text" inputMode="numeric" value={values.timeoutMs} onChange={(e) => set('timeoutMs', e.target.value)} data-testid="mcp-timeout" />
        </Field>
        <Field label="Longest observation (characters)" issue={issueFor('maxOutputChars')}>
          <input type="text" inputMode="numeric" value={values.maxOutputChars} onChange={(e) => set('maxOutputChars', e.target.value)} data-testid="mcp-max-output" />
        </Field>
      </div>
      {remote && remote.field === null ? <ErrorNotice error={remote.error} /> : null}
      <div className="row">
        <button type="submit" className="button button-primary" disabled={busy} data-testid="mcp-submit">
          {busy ? 'Starting the server and checking the tasks…' : 'Add environment'}
        </button>
        <button type="button" className="button" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        {busy && <span className="spinner" role="status" aria-label="Checking the server" />}
      </div>
    </form>
  );
}

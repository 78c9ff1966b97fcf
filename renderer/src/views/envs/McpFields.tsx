import type { ReactNode } from 'react';
import { resetChoices, type EnvVarRow, type McpFormValues, type ResetKind } from './mcp-form';

/** A labelled input of the MCP form, its hint, and its issue (the form's own or the engine's). */
export function Field({ label, issue, hint, children }: { label: string; issue?: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <div className="mcp-field">
      <label>
        <span className="mcp-label">{label}</span>
        {children}
      </label>
      {hint && <p className="muted mcp-hint">{hint}</p>}
      <Issue text={issue} />
    </div>
  );
}

function Issue({ text }: { text?: string }) {
  return text ? (
    <p className="knob-issue" role="alert">
      {text}
    </p>
  ) : null;
}

/** The server process's environment variables as name/value rows; blank rows are ignored when sending. */
export function EnvVarRows({ rows, issue, onChange }: { rows: EnvVarRow[]; issue?: string; onChange: (rows: EnvVarRow[]) => void }) {
  const edit = (index: number, patch: Partial<EnvVarRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <fieldset className="mcp-field mcp-fieldset" data-testid="mcp-env">
      <legend className="mcp-label">Environment variables (optional)</legend>
      {rows.length === 0 && <p className="muted mcp-hint">None: the server gets only the workbench's own environment.</p>}
      {rows.map((row, index) => (
        <div className="mcp-env-row" key={index}>
          <input
            type="text"
            className="mono"
            value={row.key}
            onChange={(e) => edit(index, { key: e.target.value })}
            placeholder="NAME"
            aria-label={`Name of variable ${index + 1}`}
            aria-invalid={issue ? true : undefined}
            data-testid={`mcp-env-key-${index}`}
          />
          <span aria-hidden="true">=</span>
          <input type="text" className="mono" value={row.value} onChange={(e) => edit(index, { value: e.target.value })} placeholder="value" aria-label={`Value of variable ${index + 1}`} data-testid={`mcp-env-value-${index}`} />
          <button type="button" className="button button-small" onClick={() => onChange(rows.filter((_, i) => i !== index))} aria-label={`Remove variable ${index + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <div className="row">
        <button type="button" className="button button-small" onClick={() => onChange([...rows, { key: '', value: '' }])} data-testid="mcp-env-add">
          Add a variable
        </button>
      </div>
      <p className="muted mcp-hint">
        <code>{'{episode_dir}'}</code> in a value is replaced by the episode's own folder (with a restart per episode).
      </p>
      <Issue text={issue} />
    </fieldset>
  );
}

/** Shown by the disabled restart choice. */
const URL_NO_RESTART_REASON = 'Not for a server reached by URL: the workbench did not start it, so it cannot start a fresh one per episode.';

type ResetPatch = Partial<Pick<McpFormValues, 'reset' | 'seedFiles' | 'resetTool' | 'resetArguments' | 'sharedState'>>;

/** How episodes are kept apart: restart, a reset tool, or (knowingly) none, each with its one-line explanation and its own inputs. */
export function ResetPolicyFields({ values, issue, dataHome, onChange }: { values: McpFormValues; issue?: string; dataHome?: string; onChange: (patch: ResetPatch) => void }) {
  const byUrl = values.transport === 'http';
  return (
    <fieldset className="mcp-field mcp-fieldset" data-testid="mcp-reset">
      <legend className="mcp-label">Between episodes</legend>
      <div className="reset-choices" role="radiogroup" aria-label="How episodes are kept apart">
        {(Object.keys(resetChoices) as ResetKind[]).map((kind) => {
          const disabled = kind === 'restart' && byUrl;
          return (
            <label key={kind} className="reset-choice" data-disabled={disabled || undefined}>
              <input type="radio" name="mcp-reset" value={kind} checked={values.reset === kind} disabled={disabled} onChange={() => onChange({ reset: kind })} data-testid={`mcp-reset-${kind}`} />
              <span>
                <strong>{resetChoices[kind].label}</strong>
                <span className="muted reset-explains">{disabled ? URL_NO_RESTART_REASON : resetChoices[kind].explains}</span>
              </span>
            </label>
          );
        })}
      </div>
      {values.reset === 'restart' && !byUrl && (
        <label className="reset-detail">
          <span className="mcp-label">Seed files (optional, one path a line)</span>
          <textarea className="mono" rows={2} value={values.seedFiles} onChange={(e) => onChange({ seedFiles: e.target.value })} spellCheck={false} data-testid="mcp-seed-files" />
          <span className="muted mcp-hint">
            Copied into each episode's <code>{'{episode_dir}'}</code> before the server starts. Like the task file they must sit inside the data home
            {dataHome ? (
              <>
                {' '}
                (<code>{dataHome}</code>)
              </>
            ) : null}
            ; they are copied into the home when the environment is added.
          </span>
        </label>
      )}
      {values.reset === 'tool' && (
        <div className="reset-detail">
          <label>
            <span className="mcp-label">Reset tool</span>
            <input type="text" className="mono" value={values.resetTool} onChange={(e) => onChange({ resetTool: e.target.value })} placeholder="reset" data-testid="mcp-reset-tool-name" />
          </label>
          <label>
            <span className="mcp-label">Its arguments (JSON object)</span>
            <textarea className="mono" rows={2} value={values.resetArguments} onChange={(e) => onChange({ resetArguments: e.target.value })} spellCheck={false} data-testid="mcp-reset-arguments" />
          </label>
        </div>
      )}
      {values.reset === 'none' && (
        <label className="start-toggle reset-detail">
          <input type="checkbox" checked={values.sharedState} onChange={(e) => onChange({ sharedState: e.target.checked })} data-testid="mcp-shared-state" />
          <span>I understand: every episode, parallel ones included, uses one server and sees what the others wrote.</span>
        </label>
      )}
      <Issue text={issue} />
    </fieldset>
  );
}

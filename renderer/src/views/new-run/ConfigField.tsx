import type { ConfigField, FieldValue } from './config-form';

interface Props {
  field: ConfigField;
  value: FieldValue;
  issue?: string;
  changed: boolean;
  /** Environment ids for the env picker; empty → free text. */
  envIds: string[];
  /** Imported model names for the model picker; empty → a name to type, with how to import one. */
  modelNames: string[];
  onChange: (value: FieldValue) => void;
}

/** The path within its group: `lr` for optim.lr, `stages.rl.lr` for a nested one. */
function label(path: string): string {
  const parts = path.split('.');
  return parts.length <= 2 ? parts[parts.length - 1]! : parts.slice(1).join('.');
}

function defaultText(field: ConfigField): string {
  if (field.path === 'env') return 'required';
  if (field.optional && field.defaultValue === '') return 'optional';
  return `default ${String(field.defaultValue)}`;
}

function bounds(field: ConfigField): string | null {
  if (field.kind !== 'number') return null;
  const parts = [field.integer ? 'whole number' : null, field.min !== null ? `≥ ${field.min}` : null, field.max !== null ? `≤ ${field.max}` : null];
  return parts.filter(Boolean).join(', ') || null;
}

/** One knob: its input, its default, a one-line explanation, and its issue if any. */
export function ConfigFieldRow({ field, value, issue, changed, envIds, modelNames, onChange }: Props) {
  const id = `knob-${field.path.replace(/\./g, '-')}`;
  const describedBy = `${id}-help${issue ? ` ${id}-issue` : ''}`;
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': issue ? true : undefined, 'data-path': field.path };

  let input;
  if (field.kind === 'boolean') {
    input = <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  } else if (field.kind === 'enum') {
    input = (
      <select {...common} value={String(value)} onChange={(e) => onChange(e.target.value)}>
        {field.optional && <option value="">(default)</option>}
        {field.options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    );
  } else if (field.kind === 'model') {
    const text = String(value);
    const imported = text.startsWith('imported:');
    input = (
      <span className="model-input">
        <select {...common} value={imported ? 'imported' : text} onChange={(e) => onChange(e.target.value === 'imported' ? 'imported:' : e.target.value)}>
          {field.presets.map((p) => (
            <option key={p} value={p}>
              preset: {p}
            </option>
          ))}
          <option value="imported">imported model…</option>
        </select>
        {imported &&
          (modelNames.length > 0 ? (
            <select aria-label="Imported model name" value={text.slice('imported:'.length)} onChange={(e) => onChange(`imported:${e.target.value}`)}>
              <option value="" disabled>
                choose…
              </option>
              {modelNames.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          ) : (
            <>
              <input type="text" aria-label="Imported model name" placeholder="name given at import" value={text.slice('imported:'.length)} onChange={(e) => onChange(`imported:${e.target.value}`)} />
              <span className="muted"> none imported yet: <code>npx envace import --hf DIR</code></span>
            </>
          ))}
      </span>
    );
  } else if (field.path === 'env' && envIds.length > 0) {
    input = (
      <select {...common} value={String(value)} onChange={(e) => onChange(e.target.value)}>
        <option value="" disabled>
          choose…
        </option>
        {envIds.map((e) => (
          <option key={e}>{e}</option>
        ))}
      </select>
    );
  } else {
    const numeric = field.kind === 'number';
    input = <input type="text" inputMode={numeric ? 'decimal' : undefined} spellCheck={false} autoComplete="off" {...common} value={String(value)} onChange={(e) => onChange(e.target.value)} className={numeric ? 'numeric' : undefined} />;
  }

  const range = bounds(field);
  return (
    <div className={`knob${issue ? ' knob-invalid' : ''}${changed ? ' knob-changed' : ''}`}>
      <label htmlFor={id} className="knob-label">
        <code>{label(field.path)}</code>
        {changed && <span className="knob-dot" title="modified: differs from the recipe (or the run this duplicates)" aria-label="modified" />}
      </label>
      <div className="knob-input">{input}</div>
      <p className="knob-help" id={`${id}-help`}>
        {field.help} <span className="muted">({[defaultText(field), range].filter(Boolean).join('; ')})</span>
      </p>
      {issue && (
        <p className="knob-issue" id={`${id}-issue`} role="alert">
          {issue}
        </p>
      )}
    </div>
  );
}

import type { ModelRef, Run, RunConfig } from '../../../../electron/contract';
import type { ConfigField, FormValues } from '../new-run/config-form';

function valueAt(config: RunConfig, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), config);
}

/** A stored value as the form holds it: the model as `tiny` / `imported:name`, booleans as they are, everything else as text ('' = left out). */
function formValue(path: string, value: unknown): FormValues[string] {
  if (path === 'model') {
    const ref = value as ModelRef;
    return 'preset' in ref ? ref.preset : `imported:${ref.imported}`;
  }
  if (typeof value === 'boolean') return value;
  return value === undefined || value === null ? '' : String(value);
}

/**
 * New run's form values for "Duplicate and edit": every knob of the run's stored (resolved) config,
 * so the copy trains exactly as the original did until a knob is changed; named as a copy so the
 * two stay apart in the Runs table.
 */
export function duplicateValues(fields: readonly ConfigField[], run: Pick<Run, 'name' | 'config'>): FormValues {
  const values = configValues(fields, run.config);
  values.name = `${run.config.name ?? run.name} (copy)`;
  return values;
}

/** Every knob of a resolved config as the form holds it (a stored run's, or a recommended recipe's). */
export function configValues(fields: readonly ConfigField[], config: RunConfig): FormValues {
  return Object.fromEntries(fields.map((f) => [f.path, formValue(f.path, valueAt(config, f.path))]));
}

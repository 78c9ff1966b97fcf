import type { z } from 'zod';
import { ModelRef, RunConfig, type RunConfigInput } from '../../../../electron/contract';
import { knobHelp } from './knob-help';

/**
 * The New-run form, derived from the contract's RunConfig: every knob, its default and its
 * bounds come from the schema, so the form cannot drift from what the engine accepts.
 */

export const groups = [
  { id: 'setup', title: 'Environment & model' },
  { id: 'lora', title: 'LoRA adapters (imported models)' },
  { id: 'method', title: 'Method' },
  { id: 'rollout', title: 'Rollout' },
  { id: 'optim', title: 'Optimisation' },
  { id: 'loss', title: 'Loss' },
  { id: 'paw', title: 'PaW' },
  { id: 'rwml', title: 'RWML' },
  { id: 'sft', title: 'SFT' },
  { id: 'testTime', title: 'Test time' },
  { id: 'budgets', title: 'Budgets' },
] as const;
export type GroupId = (typeof groups)[number]['id'];

const topLevelGroup: Record<string, GroupId> = {
  name: 'setup',
  env: 'setup',
  worldSize: 'setup',
  worldMode: 'setup',
  taskMix: 'setup',
  layout: 'setup',
  trainTasks: 'setup',
  heldoutTasks: 'setup',
  model: 'setup',
  tokenizerWordStarts: 'setup',
  tokenizerDigits: 'setup',
  provider: 'setup',
  threads: 'setup',
  seed: 'setup',
  algo: 'method',
  steps: 'budgets',
  contextTokens: 'budgets',
  checkpointEvery: 'budgets',
  evalEvery: 'budgets',
  initFrom: 'method',
};

export type FieldKind =
  | { kind: 'number'; integer: boolean; min: number | null; max: number | null }
  | { kind: 'boolean' }
  | { kind: 'enum'; options: string[] }
  | { kind: 'text' }
  | { kind: 'model'; presets: string[] };

export type ConfigField = FieldKind & {
  /** Dotted path into RunConfig, e.g. `rollout.k`. */
  path: string;
  group: GroupId;
  help: string;
  optional: boolean;
  /** The resolved default, in the form's representation. */
  defaultValue: FieldValue;
};

/** Numbers are edited as text so half-typed input ("0.", "1e-") is not lost. */
export type FieldValue = string | boolean;
export type FormValues = Record<string, FieldValue>;

type AnySchema = z.core.$ZodType & { _zod: { def: { type: string; innerType?: AnySchema } } };

function unwrap(schema: AnySchema): { inner: AnySchema; optional: boolean } {
  let inner = schema;
  let optional = false;
  while (['default', 'prefault', 'optional'].includes(inner._zod.def.type)) {
    if (inner._zod.def.type === 'optional') optional = true;
    inner = inner._zod.def.innerType as AnySchema;
  }
  return { inner, optional };
}

function kindOf(path: string, schema: AnySchema): FieldKind {
  if (path === 'model') {
    const presetOption = ModelRef.options[0];
    return { kind: 'model', presets: [...presetOption.shape.preset.options] };
  }
  const def = schema._zod.def;
  if (def.type === 'number') {
    const n = schema as unknown as z.ZodNumber;
    const finite = (v: number | null) => (v === null || !Number.isFinite(v) || Math.abs(v) >= Number.MAX_SAFE_INTEGER ? null : v);
    return { kind: 'number', integer: n.format === 'safeint' || n.format === 'int32', min: finite(n.minValue), max: finite(n.maxValue) };
  }
  if (def.type === 'boolean') return { kind: 'boolean' };
  if (def.type === 'enum') return { kind: 'enum', options: (schema as unknown as z.ZodEnum).options.map(String) };
  return { kind: 'text' };
}

function getPath(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), value);
}

function toFieldValue(path: string, value: unknown): FieldValue {
  if (path === 'model') {
    const ref = value as z.infer<typeof ModelRef> | undefined;
    if (!ref) return '';
    return 'preset' in ref ? ref.preset : `imported:${ref.imported}`;
  }
  if (typeof value === 'boolean') return value;
  if (value === undefined || value === null) return '';
  return String(value);
}

/** Every knob of RunConfig as a form field, in schema order, with defaults resolved for `env`. */
export function configFields(): ConfigField[] {
  const defaults = RunConfig.parse({ env: 'default' });
  const fields: ConfigField[] = [];
  // Objects nest (optim.stages.rl.lr); every leaf is a field of its top-level group. A leaf is
  // optional when it or any object above it is: leaving it empty leaves it out of the config.
  const walk = (path: string, schema: AnySchema, group: GroupId, optionalAbove: boolean): void => {
    const { inner, optional } = unwrap(schema);
    if (inner._zod.def.type === 'object' && path !== 'model') {
      const shape = (inner as unknown as z.ZodObject).shape as Record<string, AnySchema>;
      for (const [sub, subSchema] of Object.entries(shape)) walk(`${path}.${sub}`, subSchema, group, optionalAbove || optional);
      return;
    }
    fields.push({
      ...kindOf(path, inner),
      path,
      group,
      help: knobHelp[path] ?? '',
      optional: optional || optionalAbove,
      defaultValue: path === 'env' ? '' : toFieldValue(path, getPath(defaults, path)),
    });
  };
  for (const [key, raw] of Object.entries(RunConfig.shape)) {
    const isGroup = unwrap(raw as unknown as AnySchema).inner._zod.def.type === 'object' && key !== 'model' && !(key in topLevelGroup);
    walk(key, raw as unknown as AnySchema, isGroup ? (key as GroupId) : (topLevelGroup[key] ?? 'budgets'), false);
  }
  return fields;
}

export function defaultValues(fields: ConfigField[], overrides: FormValues = {}): FormValues {
  return { ...Object.fromEntries(fields.map((f) => [f.path, f.defaultValue])), ...overrides };
}

export type FieldIssues = Record<string, string>;
export type Validation = { ok: true; config: RunConfigInput } | { ok: false; issues: FieldIssues };

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1]!] = value;
}

/**
 * Form values → a RunConfig input, checked by the contract's own schema. Issues are keyed by
 * field path so each shows next to its field; text that is not a number is caught here, in
 * plain words, before zod would call it "a string".
 */
export function validateForm(fields: ConfigField[], values: FormValues): Validation {
  const issues: FieldIssues = {};
  const config: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.path] ?? field.defaultValue;
    // An optional knob left empty is left out: its default (or the value it inherits) applies.
    if (field.optional && value === '') continue;
    if (field.kind === 'number') {
      const text = String(value).trim();
      const parsed = text === '' ? NaN : Number(text);
      if (!Number.isFinite(parsed)) {
        issues[field.path] = text === '' ? 'enter a number' : `"${text}" is not a number`;
        continue;
      }
      setPath(config, field.path, parsed);
    } else if (field.kind === 'model') {
      const text = String(value);
      if (text.startsWith('imported:')) setPath(config, field.path, { imported: text.slice('imported:'.length).trim() });
      else setPath(config, field.path, { preset: text });
    } else if (field.kind === 'text') {
      const text = String(value).trim();
      if (text !== '' || !field.optional) setPath(config, field.path, text);
    } else {
      setPath(config, field.path, value);
    }
  }
  const parsed = RunConfig.safeParse(config);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = fieldPathOf(fields, issue.path.map(String));
      issues[path] ??= friendlyMessage(issue);
    }
  }
  if (Object.keys(issues).length > 0) return { ok: false, issues };
  return { ok: true, config: config as RunConfigInput };
}

/** The deepest field that contains an issue's path (`model.imported` → `model`). */
function fieldPathOf(fields: ConfigField[], path: string[]): string {
  for (let n = path.length; n > 0; n -= 1) {
    const candidate = path.slice(0, n).join('.');
    if (fields.some((f) => f.path === candidate)) return candidate;
  }
  return path.join('.') || '(config)';
}

function friendlyMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_small' && issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'required' : `at least ${issue.minimum} characters`;
  if (issue.code === 'too_small' && 'minimum' in issue) return `must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}`;
  if (issue.code === 'too_big' && 'maximum' in issue) return `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`;
  if (issue.code === 'invalid_type' && issue.expected === 'int') return 'must be a whole number';
  return issue.message;
}

/** The engine's issues (`config.rollout.k`) mapped onto form fields (`rollout.k`). */
export function serverIssues(fields: ConfigField[], issues: Array<{ path: string; message: string }>): FieldIssues {
  const out: FieldIssues = {};
  for (const issue of issues) {
    const path = fieldPathOf(fields, issue.path.replace(/^config\.?/, '').split('.').filter(Boolean));
    out[path] ??= issue.message;
  }
  return out;
}

/** Fields whose value differs from `baseline` (the recipe or the duplicated run; else the schema's defaults), to mark them in the form. */
export function changedPaths(fields: ConfigField[], values: FormValues, baseline?: FormValues): Set<string> {
  const base = (f: ConfigField) => (baseline ? (baseline[f.path] ?? f.defaultValue) : f.defaultValue);
  return new Set(fields.filter((f) => f.path !== 'env' && f.path !== 'name' && values[f.path] !== undefined && String(values[f.path]) !== String(base(f))).map((f) => f.path));
}

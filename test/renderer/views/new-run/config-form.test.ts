import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { changedPaths, configFields, defaultValues, groups, serverIssues, validateForm } from '../../../../renderer/src/views/new-run/config-form';
import { knobHelp } from '../../../../renderer/src/views/new-run/knob-help';

const fields = configFields();
const byPath = (path: string) => fields.find((f) => f.path === path)!;

/** Every leaf path of the resolved default config (model counts as one knob). */
function leafPaths(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([key, v]) =>
    v && typeof v === 'object' && key !== 'model' ? leafPaths(v as Record<string, unknown>, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

describe('configFields', () => {
  it('has one field per RunConfig knob, each with a one-line explanation and a known group', () => {
    const defaults = RunConfig.parse({ env: 'x' });
    // Optional knobs have no default, so the resolved config does not show them.
    const stageOverrides = ['sft', 'world', 'rl'].flatMap((st) => ['lr', 'warmupSteps', 'minLrRatio', 'schedule'].map((k) => `optim.stages.${st}.${k}`));
    const expected = [...leafPaths(defaults), 'name', 'trainTasks', 'heldoutTasks', 'contextTokens', 'sft.demonstrationsFile', 'initFrom.runId', 'initFrom.step', ...stageOverrides].sort();
    expect(fields.map((f) => f.path).sort()).toEqual(expected);
    const groupIds = new Set<string>(groups.map((g) => g.id));
    for (const field of fields) {
      expect(field.help, field.path).not.toBe('');
      expect(groupIds.has(field.group), field.path).toBe(true);
    }
    expect(Object.keys(knobHelp).sort()).toEqual(expected);
  });

  it('reads defaults, bounds and options from the schema', () => {
    expect(byPath('rollout.k')).toMatchObject({ kind: 'number', integer: true, min: 1, max: 64, defaultValue: '4', group: 'rollout' });
    expect(byPath('optim.lr')).toMatchObject({ kind: 'number', integer: false, max: 1, defaultValue: '0.0003' });
    expect(byPath('loss.stdNormalize')).toMatchObject({ kind: 'boolean', defaultValue: false });
    expect(byPath('algo')).toMatchObject({ kind: 'enum', defaultValue: 'envace', group: 'method' });
    expect(byPath('algo').kind === 'enum' && byPath('algo')).toMatchObject({ options: expect.arrayContaining(['sft+envace', 'rwml+grpo-real']) });
    expect(byPath('model')).toMatchObject({ kind: 'model', presets: ['nano', 'tiny', 'small'], defaultValue: 'tiny' });
    expect(byPath('name')).toMatchObject({ kind: 'text', optional: true, defaultValue: '' });
    expect(byPath('steps').group).toBe('budgets');
  });
});

describe('validateForm', () => {
  it('turns the defaults plus an env into exactly the config the schema resolves', () => {
    const result = validateForm(fields, defaultValues(fields, { env: 'retail' }));
    expect(result.ok).toBe(true);
    if (result.ok) expect(RunConfig.parse(result.config)).toEqual(RunConfig.parse({ env: 'retail' }));
  });

  it('puts each issue on its own field, in plain words', () => {
    const values = defaultValues(fields, { env: 'retail', 'rollout.k': '0', steps: '1.5', 'optim.lr': 'fast', 'rollout.topP': '' });
    const result = validateForm(fields, values);
    expect(result).toEqual({
      ok: false,
      issues: { 'rollout.k': 'must be at least 1', steps: 'must be a whole number', 'optim.lr': '"fast" is not a number', 'rollout.topP': 'enter a number' },
    });
  });

  it('requires an env and an imported model name, maps model issues to the model field', () => {
    const result = validateForm(fields, defaultValues(fields, { model: 'imported:' }));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues.env).toBe('required');
      expect(result.issues.model).toBe('required');
    }
    const imported = validateForm(fields, defaultValues(fields, { env: 'retail', model: 'imported:my-qwen' }));
    expect(imported.ok && imported.config.model).toEqual({ imported: 'my-qwen' });
  });

  it('leaves optional text out when blank and converts numbers and booleans', () => {
    const result = validateForm(fields, defaultValues(fields, { env: 'files', 'loss.stdNormalize': true, 'optim.lr': '1e-3' }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect('name' in result.config).toBe(false);
    expect(result.config.loss?.stdNormalize).toBe(true);
    expect(result.config.optim?.lr).toBe(0.001);
  });
});

describe('serverIssues and changedPaths', () => {
  it('maps the engine issue paths (config.…) onto form fields', () => {
    expect(serverIssues(fields, [{ path: 'config.env', message: 'not a registered environment' }, { path: 'config.model.preset', message: 'bad' }])).toEqual({
      env: 'not a registered environment',
      model: 'bad',
    });
  });
  it('lists the knobs that differ from their default', () => {
    const values = defaultValues(fields, { env: 'retail', 'rollout.k': '8', 'loss.stdNormalize': true, 'optim.lr': '0.0003' });
    expect([...changedPaths(fields, values)].sort()).toEqual(['loss.stdNormalize', 'rollout.k']);
  });
});

describe('nested and optional knobs', () => {
  it('a stage override left empty is left out (it inherits optim), a filled one is sent; initFrom only with a run id', () => {
    const base = defaultValues(fields, { env: 'retail' });
    const empty = validateForm(fields, base);
    expect(empty.ok && empty.config.optim?.stages?.rl).toEqual({ resetMoments: true });
    expect(empty.ok && 'initFrom' in empty.config).toBe(false);
    const filled = validateForm(fields, { ...base, 'optim.stages.rl.lr': '0.001', 'optim.stages.rl.schedule': 'constant', 'initFrom.runId': 'run-20261201-1', 'initFrom.step': '' });
    expect(filled.ok && filled.config.optim?.stages?.rl).toEqual({ lr: 0.001, schedule: 'constant', resetMoments: true });
    expect(filled.ok && filled.config.initFrom).toEqual({ runId: 'run-20261201-1' });
    const stepOnly = validateForm(fields, { ...base, 'initFrom.step': '40' });
    expect(stepOnly.ok).toBe(false);
    // A step without the run it belongs to is refused at the run id field.
    expect(!stepOnly.ok && stepOnly.issues['initFrom.runId']).toMatch(/expected string/);
    expect(byPath('optim.stages.rl.lr')).toMatchObject({ group: 'optim', optional: true, defaultValue: '' });
    expect(byPath('initFrom.runId')).toMatchObject({ group: 'method', optional: true });
  });
});

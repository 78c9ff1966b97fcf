// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { configFields, validateForm, type ConfigField, type FormValues } from '../../../../renderer/src/views/new-run/config-form';
import { NewRunView } from '../../../../renderer/src/views/new-run/NewRunView';
import { fakeApi } from '../../fake-api';
import { makeRun } from '../../make-run';

afterEach(() => {
  cleanup();
  window.location.hash = '';
});

/** A valid value for a knob that differs from its default, so a knob the duplicate drops shows up as a default. */
function otherValue(field: ConfigField): FormValues[string] {
  const d = field.defaultValue;
  if (field.kind === 'boolean') return !d;
  if (field.kind === 'enum') return field.options.find((o) => o !== d)!;
  if (field.kind === 'model') return field.presets.find((p) => p !== d)!;
  if (field.kind === 'number') {
    const base = d === '' ? (field.min ?? 0) + 1 : Number(d);
    const ok = (v: number) => v !== Number(d) && (field.min === null || v >= field.min) && (field.max === null || v <= field.max) && (!field.integer || Number.isInteger(v)) && v > 0;
    return String([base + 1, base / 2, base - 1, 2, 0.5].find(ok));
  }
  return { env: 'retail', name: 'source run', 'sft.demonstrationsFile': 'demos/expert.jsonl', 'initFrom.runId': 'run-parent' }[field.path] ?? 'x';
}

describe('Duplicate and edit', () => {
  it('opens New run with every knob of the stored config, and creates exactly that config', async () => {
    const fields = configFields();
    const values = Object.fromEntries(fields.map((f) => [f.path, otherValue(f)]));
    const validation = validateForm(fields, values);
    if (!validation.ok) throw new Error(`test config invalid: ${JSON.stringify(validation.issues)}`);
    const config = RunConfig.parse(validation.config);
    const source = makeRun('run-src', { config, status: 'failed', error: 'diverged at step 3' });
    const fake = fakeApi({
      'runs.get': () => source,
      'envs.ids': () => ({ ids: ['retail'] }),
      'models.list': () => ({ items: [] }),
      'runs.create': () => source,
    });
    window.location.hash = '#/new?from=run-src';
    render(
      <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
        <NewRunView />
      </ConnectionProvider>,
    );
    expect((await screen.findByTestId('duplicate-of')).textContent).toContain('diverged at step 3');
    fireEvent.click(screen.getByTestId('create-run'));
    await waitFor(() => expect(fake.calls.some((c) => c.method === 'runs.create')).toBe(true));
    const created = RunConfig.parse((fake.calls.find((c) => c.method === 'runs.create')!.input as { config: unknown }).config);
    expect(created).toEqual({ ...config, name: 'source run (copy)' });
    // Every knob was away from its default, so none can have been carried by falling back to it.
    const defaults = RunConfig.parse({ env: 'retail' });
    for (const field of fields.filter((f) => f.path !== 'env')) {
      const at = (c: unknown) => field.path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], c);
      expect(JSON.stringify(at(created)), field.path).not.toBe(JSON.stringify(at(defaults)));
    }
  });
});

// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { builtInDefaults, ContractError, type Settings } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { SettingsView } from '../../../../renderer/src/views/settings/SettingsView';
import { formatBytes } from '../../../../renderer/src/format/units';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

const settings = (patch: Partial<Settings> = {}): Settings => ({
  dataHome: '/home/ada/.envace',
  settingsFile: '/home/ada/.envace/settings.json',
  homeBytes: 3 * 1024 ** 3,
  freeBytes: 120 * 1024 ** 3,
  access: { writable: true, owner: null },
  defaults: builtInDefaults,
  ...patch,
});

function show(handlers: Parameters<typeof fakeApi>[0]) {
  const fake = fakeApi({ 'envs.ids': () => ({ ids: ['mock', 'retail'] }), 'models.list': () => ({ items: [{ name: 'qwen' }] }), ...handlers });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <SettingsView />
    </ConnectionProvider>,
  );
  return fake;
}

describe('SettingsView', () => {
  it('shows the data home, its size and free disk, and stores edited defaults through settings.set', async () => {
    let stored = settings();
    const fake = show({
      'settings.get': () => stored,
      'settings.set': (input) => (stored = settings({ defaults: (input as { defaults: Settings['defaults'] }).defaults })),
    });
    expect((await screen.findByTestId('settings-home')).textContent).toBe('/home/ada/.envace');
    expect(screen.getByTestId('settings-home-size').textContent).toBe(formatBytes(3 * 1024 ** 3));
    expect(screen.getByTestId('settings-free').textContent).toBe(formatBytes(120 * 1024 ** 3));
    expect(screen.getByTestId('settings-access').textContent).toContain('owns the data home');
    await waitFor(() => expect(screen.getByTestId('settings-env').querySelectorAll('option')).toHaveLength(3));
    fireEvent.change(screen.getByTestId('settings-env'), { target: { value: 'retail' } });
    fireEvent.change(screen.getByTestId('settings-model'), { target: { value: 'imported:qwen' } });
    fireEvent.change(screen.getByTestId('settings-split'), { target: { value: 'ood' } });
    fireEvent.change(screen.getByTestId('settings-limit'), { target: { value: '25' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    await screen.findByTestId('settings-saved');
    expect(fake.calls.find((c) => c.method === 'settings.set')!.input).toEqual({
      defaults: { newRun: { env: 'retail', model: 'imported:qwen' }, evaluate: { split: 'ood', limit: 25 } },
    });
    expect((screen.getByTestId('settings-limit') as HTMLInputElement).value).toBe('25');
  });

  it('a bad limit is explained and not sent; empty means every task', async () => {
    const fake = show({ 'settings.get': () => settings(), 'settings.set': () => settings() });
    fireEvent.change(await screen.findByTestId('settings-limit'), { target: { value: '0' } });
    expect(screen.getByTestId('settings-problem').textContent).toContain('whole number from 1 to 10,000');
    expect((screen.getByTestId('settings-save') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByTestId('settings-limit'), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    await screen.findByTestId('settings-saved');
    expect((fake.calls.find((c) => c.method === 'settings.set')!.input as { defaults: Settings['defaults'] }).defaults.evaluate.limit).toBeNull();
  });

  it('read-only: says who owns the home and does not offer to store', async () => {
    show({ 'settings.get': () => settings({ access: { writable: false, owner: 'envace train (pid 42)' } }) });
    expect((await screen.findByTestId('settings-access')).textContent).toContain('in use by envace train (pid 42)');
    expect((screen.getByTestId('settings-save') as HTMLButtonElement).disabled).toBe(true);
  });

  it('loading first, then an error with a retry', async () => {
    let fail = true;
    show({ 'settings.get': () => (fail ? Promise.reject(new ContractError('internal', 'disk gone')) : settings()) });
    expect(screen.getByText(/Loading settings/)).toBeTruthy();
    expect(await screen.findByText(/disk gone/)).toBeTruthy();
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect((await screen.findByTestId('settings-home')).textContent).toBe('/home/ada/.envace');
  });
});

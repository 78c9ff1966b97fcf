// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionProvider } from '../../../renderer/src/api/context';
import { HomeAccessBanner } from '../../../renderer/src/app/HomeAccessBanner';
import { fakeApi } from '../fake-api';

afterEach(cleanup);

function show(access: { writable: boolean; owner: string | null }) {
  const fake = fakeApi({ 'system.info': () => ({ dataHome: '/home/ada/.envace', dataHomeAccess: access }) });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'ipc' }}>
      <HomeAccessBanner />
    </ConnectionProvider>,
  );
}

describe('HomeAccessBanner', () => {
  it('names the process that owns the data home when this engine is read-only', async () => {
    show({ writable: false, owner: 'envace train (pid 4242, since 2026-12-01 10:00:00 UTC)' });
    const banner = await screen.findByTestId('home-access-banner');
    expect(banner.textContent).toContain('Read-only');
    expect(banner.textContent).toContain('envace train (pid 4242');
  });

  it('says nothing when this engine owns the home', async () => {
    show({ writable: true, owner: null });
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByTestId('home-access-banner')).toBeNull();
  });
});

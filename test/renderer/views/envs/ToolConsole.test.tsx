// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { EnvDetail } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { ToolConsole } from '../../../../renderer/src/views/envs/ToolConsole';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

const env: EnvDetail = {
  id: 'memory',
  description: '',
  track: 'mcp',
  toolCount: 1,
  taskCounts: { train: 1, heldout: 0, ood: 0 },
  tools: [{ name: 'open_nodes', description: 'Open nodes by name', parameters: { type: 'object', properties: { names: { type: 'array' } }, required: ['names'] } }],
};

function callWith(answer: { observation: string; ok: boolean; wallMs: number }) {
  const fake = fakeApi({ 'envs.call': () => answer });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <ToolConsole env={env} />
    </ConnectionProvider>,
  );
  fireEvent.click(screen.getByTestId('console-call'));
  return fake;
}

describe('ToolConsole', () => {
  it('shows a result with ok=false as an error, not as ok', async () => {
    const fake = callWith({ observation: 'Error: no entity named "Bob"', ok: false, wallMs: 12 });
    const result = await screen.findByTestId('console-result');
    expect(fake.calls[0]).toEqual({ method: 'envs.call', input: { env: 'memory', tool: 'open_nodes', arguments: { names: [] }, taskId: undefined } });
    expect(result.className).toContain('console-result-error');
    expect(result.querySelector('.badge')?.textContent).toBe('error');
    expect(result.querySelector('.badge')?.className).toContain('badge-bad');
    expect(result.textContent).not.toMatch(/\bok\b/);
    expect(result.querySelector('pre')?.textContent).toBe('Error: no entity named "Bob"');
  });

  it('shows a result with ok=true as ok', async () => {
    callWith({ observation: '{"entities": []}', ok: true, wallMs: 3 });
    const result = await screen.findByTestId('console-result');
    expect(result.className).not.toContain('console-result-error');
    expect(result.querySelector('.badge')?.textContent).toBe('ok');
    expect(result.querySelector('.badge')?.className).toContain('badge-good');
  });
});

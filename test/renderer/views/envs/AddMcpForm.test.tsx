// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ContractError } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { AddMcpForm } from '../../../../renderer/src/views/envs/AddMcpForm';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

function setup(addMcp: (input: unknown) => unknown) {
  const fake = fakeApi({ 'system.info': () => ({ dataHome: '/home/ada/.envace' }), 'envs.addMcp': addMcp });
  const onAdded = vi.fn();
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <AddMcpForm onAdded={onAdded} onClose={() => {}} />
    </ConnectionProvider>,
  );
  return { fake, onAdded };
}

const fieldOf = (testId: string) => screen.getByTestId(testId).closest('.mcp-field')!;

describe('AddMcpForm', () => {
  it('says what each empty field needs and sends nothing', async () => {
    const { fake } = setup(() => ({}));
    fireEvent.click(screen.getByTestId('mcp-submit'));
    expect(fieldOf('mcp-id').querySelector('.knob-issue')).not.toBeNull();
    expect(fieldOf('mcp-command').querySelector('.knob-issue')?.textContent).toMatch(/type the command/);
    expect(fieldOf('mcp-task-file').querySelector('.knob-issue')).not.toBeNull();
    expect(fake.calls.some((c) => c.method === 'envs.addMcp')).toBe(false);
  });

  it('sends the split command line and shows the engine refusal under the task file', async () => {
    const { fake, onAdded } = setup(() => {
      throw new ContractError('invalid_input', 'the task file must be inside /home/ada/.envace when added from the workbench window');
    });
    fireEvent.change(screen.getByTestId('mcp-id'), { target: { value: 'fs' } });
    fireEvent.change(screen.getByTestId('mcp-command'), { target: { value: 'node "/opt/my server/index.js" /data' } });
    fireEvent.change(screen.getByTestId('mcp-task-file'), { target: { value: '/tmp/tasks.jsonl' } });
    fireEvent.click(screen.getByTestId('mcp-submit'));
    await screen.findByText(/must be inside \/home\/ada\/.envace/);
    expect(fieldOf('mcp-task-file').querySelector('.knob-issue')?.textContent).toContain('must be inside');
    expect(fake.calls.find((c) => c.method === 'envs.addMcp')?.input).toEqual({
      id: 'fs',
      server: { command: 'node', args: ['/opt/my server/index.js', '/data'] },
      taskFile: '/tmp/tasks.jsonl',
      timeoutMs: 10_000,
      maxOutputChars: 8_000,
    });
    expect(onAdded).not.toHaveBeenCalled();

    // Editing the field clears the refusal, so the next answer is the one shown.
    fireEvent.change(screen.getByTestId('mcp-task-file'), { target: { value: '/home/ada/.envace/tasks.jsonl' } });
    expect(fieldOf('mcp-task-file').querySelector('.knob-issue')).toBeNull();
  });
});

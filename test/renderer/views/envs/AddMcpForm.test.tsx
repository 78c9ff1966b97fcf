// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
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
      server: { command: 'node', args: ['/opt/my server/index.js', '/data'], env: {} },
      taskFile: '/tmp/tasks.jsonl',
      reset: { kind: 'restart', seedFiles: [] },
      timeoutMs: 10_000,
      maxOutputChars: 8_000,
    });
    expect(onAdded).not.toHaveBeenCalled();

    // Editing the field clears the refusal, so the next answer is the one shown.
    fireEvent.change(screen.getByTestId('mcp-task-file'), { target: { value: '/home/ada/.envace/tasks.jsonl' } });
    expect(fieldOf('mcp-task-file').querySelector('.knob-issue')).toBeNull();
  });

  it('sends variables, working folder and seed files typed into the form', async () => {
    const { fake, onAdded } = setup((input) => ({ id: (input as { id: string }).id, description: '', track: 'mcp', toolCount: 9, taskCounts: { train: 6, heldout: 2, ood: 1 } }));
    fireEvent.change(screen.getByTestId('mcp-id'), { target: { value: 'memory' } });
    fireEvent.change(screen.getByTestId('mcp-command'), { target: { value: 'npx -y @modelcontextprotocol/server-memory' } });
    fireEvent.click(screen.getByTestId('mcp-env-add'));
    fireEvent.click(screen.getByTestId('mcp-env-add'));
    fireEvent.change(screen.getByTestId('mcp-env-key-0'), { target: { value: 'MEMORY_FILE_PATH' } });
    fireEvent.change(screen.getByTestId('mcp-env-value-0'), { target: { value: '{episode_dir}/memory.jsonl' } });
    fireEvent.change(screen.getByTestId('mcp-env-key-1'), { target: { value: 'DROP_ME' } });
    fireEvent.click(screen.getByRole('button', { name: 'Remove variable 2' }));
    fireEvent.change(screen.getByTestId('mcp-cwd'), { target: { value: '{episode_dir}' } });
    fireEvent.change(screen.getByTestId('mcp-seed-files'), { target: { value: '/home/ada/.envace/seed/memory.jsonl' } });
    fireEvent.change(screen.getByTestId('mcp-task-file'), { target: { value: '/home/ada/.envace/tasks.jsonl' } });
    expect(screen.getByTestId('mcp-reset').textContent).toMatch(/copied into the home when the environment is added/);
    fireEvent.click(screen.getByTestId('mcp-submit'));
    await waitFor(() => expect(onAdded).toHaveBeenCalled());
    expect(fake.calls.find((c) => c.method === 'envs.addMcp')?.input).toMatchObject({
      server: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '{episode_dir}/memory.jsonl' }, cwd: '{episode_dir}' },
      reset: { kind: 'restart', seedFiles: ['/home/ada/.envace/seed/memory.jsonl'] },
    });
  });

  it('shows a bad variable name at the variables and sends nothing', () => {
    const { fake } = setup(() => ({}));
    fireEvent.change(screen.getByTestId('mcp-id'), { target: { value: 'fs' } });
    fireEvent.change(screen.getByTestId('mcp-command'), { target: { value: 'node server.js' } });
    fireEvent.change(screen.getByTestId('mcp-task-file'), { target: { value: '/home/ada/.envace/tasks.jsonl' } });
    fireEvent.click(screen.getByTestId('mcp-env-add'));
    fireEvent.change(screen.getByTestId('mcp-env-key-0'), { target: { value: 'API KEY' } });
    fireEvent.click(screen.getByTestId('mcp-submit'));
    expect(screen.getByTestId('mcp-env').querySelector('.knob-issue')?.textContent).toMatch(/"API KEY" is not a variable name/);
    expect(fieldOf('mcp-command').querySelector('.knob-issue')).toBeNull();
    expect(fake.calls.some((c) => c.method === 'envs.addMcp')).toBe(false);
  });

  it('does not let a URL server restart, and asks for the checkbox before sharing state', async () => {
    const { fake, onAdded } = setup(() => ({ id: 'remote', description: '', track: 'mcp', toolCount: 1, taskCounts: { train: 1, heldout: 0, ood: 0 } }));
    fireEvent.change(screen.getByTestId('mcp-id'), { target: { value: 'remote' } });
    fireEvent.click(screen.getByLabelText(/a URL/));
    fireEvent.change(screen.getByTestId('mcp-url'), { target: { value: 'http://127.0.0.1:3001/mcp' } });
    fireEvent.change(screen.getByTestId('mcp-task-file'), { target: { value: '/home/ada/.envace/tasks.jsonl' } });
    const restart = screen.getByTestId('mcp-reset-restart') as HTMLInputElement;
    expect(restart.disabled).toBe(true);
    expect(restart.closest('label')?.textContent).toMatch(/Not for a server reached by URL/);
    expect(screen.getByTestId('mcp-reset').querySelector('.knob-issue')?.textContent).toMatch(/cannot be restarted per episode/);

    fireEvent.click(screen.getByTestId('mcp-reset-none'));
    fireEvent.click(screen.getByTestId('mcp-submit'));
    expect(screen.getByTestId('mcp-reset').querySelector('.knob-issue')?.textContent).toMatch(/tick the box/);
    expect(fake.calls.some((c) => c.method === 'envs.addMcp')).toBe(false);

    fireEvent.click(screen.getByTestId('mcp-shared-state'));
    fireEvent.click(screen.getByTestId('mcp-submit'));
    await waitFor(() => expect(onAdded).toHaveBeenCalled());
    expect(fake.calls.find((c) => c.method === 'envs.addMcp')?.input).toMatchObject({ server: { url: 'http://127.0.0.1:3001/mcp' }, reset: { kind: 'none', sharedState: true } });
  });

  it('sends a reset tool with its arguments', async () => {
    const { fake, onAdded } = setup(() => ({ id: 'db', description: '', track: 'mcp', toolCount: 1, taskCounts: { train: 1, heldout: 0, ood: 0 } }));
    fireEvent.change(screen.getByTestId('mcp-id'), { target: { value: 'db' } });
    fireEvent.change(screen.getByTestId('mcp-command'), { target: { value: 'node db-server.js' } });
    fireEvent.change(screen.getByTestId('mcp-task-file'), { target: { value: '/home/ada/.envace/tasks.jsonl' } });
    fireEvent.click(screen.getByTestId('mcp-reset-tool'));
    fireEvent.change(screen.getByTestId('mcp-reset-tool-name'), { target: { value: 'reset_db' } });
    fireEvent.change(screen.getByTestId('mcp-reset-arguments'), { target: { value: '{"fixture": "small"}' } });
    fireEvent.click(screen.getByTestId('mcp-submit'));
    await waitFor(() => expect(onAdded).toHaveBeenCalled());
    expect(fake.calls.find((c) => c.method === 'envs.addMcp')?.input).toMatchObject({ reset: { kind: 'tool', tool: 'reset_db', arguments: { fixture: 'small' } } });
  });
});

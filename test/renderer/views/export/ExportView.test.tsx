// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError, RunConfig, type ExportRecord } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { ExportView } from '../../../../renderer/src/views/export/ExportView';
import { fakeApi } from '../../fake-api';
import { makeRun } from '../../make-run';

afterEach(cleanup);

const HOME = '/home/ada/.envace';

const withLora = makeRun('run-lora', { checkpointSteps: [3], config: RunConfig.parse({ env: 'mock', name: 'run-lora', lora: { rank: 8 } }) });

function setup(create: (input: unknown) => unknown, linkedRun?: string) {
  const records: ExportRecord[] = [];
  const fake = fakeApi({
    'system.info': () => ({ dataHome: HOME }),
    'runs.list': () => ({ items: [makeRun('run-a', { checkpointSteps: [2, 4] }), makeRun('run-b', { checkpointSteps: [1] }), makeRun('run-new'), withLora], total: 4 }),
    'models.list': () => ({ items: [] }),
    'exports.list': () => ({ items: records }),
    'exports.create': (input) => {
      const record = create(input) as ExportRecord;
      records.unshift(record);
      return record;
    },
  });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <ExportView runId={linkedRun} />
    </ConnectionProvider>,
  );
  return fake;
}

describe('ExportView', () => {
  it('sends the picked checkpoint, format and folder, then lists the files with sizes and the snippet', async () => {
    const fake = setup((input) => ({
      id: 1,
      runId: 'run-a',
      model: null,
      step: 2,
      format: 'onnx',
      outDir: (input as { outDir: string }).outDir,
      files: [
        { name: 'model.onnx', bytes: 3 * 1024 * 1024 },
        { name: 'config.json', bytes: 512 },
      ],
      loadSnippet: 'import onnxruntime',
      createdAt: Date.now(),
    }));
    const step = (await screen.findByTestId('export-step')) as HTMLSelectElement;
    fireEvent.change(step, { target: { value: '2' } });
    fireEvent.click(screen.getByLabelText('ONNX'));
    fireEvent.change(screen.getByTestId('export-folder-name'), { target: { value: 'agent-v1' } });
    fireEvent.click(screen.getByTestId('export-submit'));

    const result = await screen.findAllByTestId('export-result');
    expect(fake.calls.find((c) => c.method === 'exports.create')?.input).toEqual({ source: { run: 'run-a', step: 2 }, format: 'onnx', outDir: `${HOME}/exports/agent-v1`, force: false });
    const sizes = [...result[0]!.querySelectorAll('tbody td.numeric')].map((td) => td.textContent);
    expect(sizes).toEqual(['3 MiB', '512 B']);
    expect(result[0]!.querySelector('[data-testid="export-folder"]')?.textContent).toBe(`${HOME}/exports/agent-v1`);
    expect(result[0]!.querySelector('[data-testid="load-snippet"]')?.textContent).toBe('import onnxruntime');
    await waitFor(() => expect(screen.getByTestId('export-list').querySelectorAll('li')).toHaveLength(1));
  });

  it('refuses a folder outside exports/ before sending, and shows an engine refusal in its words', async () => {
    const fake = setup(() => {
      throw new ContractError('conflict', 'the folder already holds an export; tick "replace" to overwrite it');
    });
    await screen.findByTestId('export-run');
    fireEvent.change(screen.getByTestId('export-folder-name'), { target: { value: '../runs' } });
    expect(screen.getByRole('alert').textContent).toMatch(/no slashes/);
    expect((screen.getByTestId('export-submit') as HTMLButtonElement).disabled).toBe(true);

    fireEvent.change(screen.getByTestId('export-folder-name'), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('export-submit'));
    const notice = await screen.findByText('Not possible right now');
    expect(notice.parentElement?.textContent).toContain('tick "replace" to overwrite it');
    // Left empty, the engine picks the folder: no outDir is sent.
    expect(fake.calls.find((c) => c.method === 'exports.create')?.input).toEqual({ source: { run: 'run-a' }, format: 'hf', force: false });
  });

  it('offers only runs with a checkpoint, preselecting the one a link names', async () => {
    setup(() => ({}), 'run-b');
    const select = (await screen.findByTestId('export-run')) as HTMLSelectElement;
    expect([...select.options].filter((o) => !o.disabled).map((o) => o.value)).toEqual(['run-a', 'run-b', 'run-lora']);
    expect(select.value).toBe('run-b');
    expect([...(screen.getByTestId('export-step') as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(['latest (step 1)', 'step 1']);
  });

  it('offers LoRA only for a run trained with adapters', async () => {
    setup(() => ({}), 'run-a');
    await screen.findByTestId('export-run');
    const lora = screen.getByLabelText('LoRA adapter') as HTMLInputElement;
    expect(lora.disabled).toBe(true);
    expect(screen.getByTestId('lora-unavailable').textContent).toMatch(/lora\.rank 0/);

    fireEvent.change(screen.getByTestId('export-run'), { target: { value: 'run-lora' } });
    expect(lora.disabled).toBe(false);
    fireEvent.click(lora);
    expect(lora.checked).toBe(true);
    expect(screen.queryByTestId('lora-unavailable')).toBeNull();

    // Back to a run without adapters: the LoRA choice does not stick, the form falls back to the HF folder.
    fireEvent.change(screen.getByTestId('export-run'), { target: { value: 'run-b' } });
    expect(lora.checked).toBe(false);
    expect((screen.getByLabelText('Hugging Face folder') as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByTestId('lora-base')).toBeNull();
  });

  it('sends the LoRA base choice and shows which base the adapter applies to', async () => {
    const note = 'The adapter applies to the model run run-lora trained on: imported model "tiny" with 8 embedding rows added';
    const fake = setup((input) => ({
      id: 1,
      runId: 'run-lora',
      model: null,
      step: 3,
      format: 'lora',
      outDir: (input as { outDir: string }).outDir,
      files: [{ name: 'adapter_config.json', bytes: 300 }, { name: 'base/config.json', bytes: 600 }],
      loadSnippet: 'from peft import PeftModel',
      notes: [note],
      createdAt: 1,
    }), 'run-lora');
    await screen.findByTestId('export-run');
    fireEvent.click(screen.getByLabelText('LoRA adapter'));
    const base = screen.getByTestId('lora-base') as HTMLSelectElement;
    expect(base.value).toBe('auto');
    fireEvent.change(base, { target: { value: 'include' } });
    fireEvent.change(screen.getByTestId('export-folder-name'), { target: { value: 'adapter' } });
    fireEvent.click(screen.getByTestId('export-submit'));
    await screen.findAllByTestId('export-result');
    expect(fake.calls.find((c) => c.method === 'exports.create')?.input).toEqual({ source: { run: 'run-lora' }, format: 'lora', outDir: `${HOME}/exports/adapter`, loraBase: 'include', force: false });
    expect(screen.getAllByTestId('export-note')[0]!.textContent).toBe(note);
  });

  it('keeps the last result on screen when the next export is refused', async () => {
    let calls = 0;
    setup((input) => {
      calls += 1;
      if (calls > 1) throw new ContractError('conflict', 'the folder already holds an export');
      return { id: 1, runId: 'run-a', model: null, step: 4, format: 'hf', outDir: (input as { outDir: string }).outDir, files: [{ name: 'config.json', bytes: 10 }], loadSnippet: 'x', createdAt: 1 };
    });
    await screen.findByTestId('export-run');
    fireEvent.change(screen.getByTestId('export-folder-name'), { target: { value: 'first' } });
    fireEvent.click(screen.getByTestId('export-submit'));
    const resultCard = (await screen.findByRole('heading', { name: 'Result' })).parentElement!;
    await waitFor(() => expect(resultCard.querySelector('[data-testid="export-folder"]')?.textContent).toBe(`${HOME}/exports/first`));

    fireEvent.click(screen.getByTestId('export-submit'));
    await screen.findByText('Not possible right now');
    expect(resultCard.querySelector('[data-testid="export-folder"]')?.textContent).toBe(`${HOME}/exports/first`);
  });
});

// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError, type ModelSummary } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { ModelsView } from '../../../../renderer/src/views/models/ModelsView';
import { ggufImportRequest, insideFolder } from '../../../../renderer/src/views/models/gguf-import-form';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

const HOME = '/home/ada/.envace';
const smol: ModelSummary = {
  name: 'smollm2',
  source: `${HOME}/in/SmolLM2-135M-Instruct.Q4_1.gguf`,
  importedAt: '2026-12-03T12:00:00Z',
  architecture: 'llama',
  paramCount: 134_515_008,
  vocabSize: 49_152,
  dModel: 576,
  nLayers: 30,
};

function show(importModel: (input: unknown) => unknown, listed: () => ModelSummary[] = () => []) {
  const fake = fakeApi({ 'system.info': () => ({ dataHome: HOME }), 'models.list': () => ({ items: listed() }), 'models.import': importModel });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <ModelsView />
    </ConnectionProvider>,
  );
  return fake;
}

const type = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } });

describe('ggufImportRequest: the path rule the engine applies to a path from the window', () => {
  it('takes a full path inside the data home, and leaves the name to the engine when empty', () => {
    expect(ggufImportRequest(HOME, ` ${HOME}/in/m.gguf `, '')).toEqual({ ok: true, input: { ggufFile: `${HOME}/in/m.gguf` } });
    expect(ggufImportRequest(HOME, `${HOME}/m.gguf`, 'smol')).toEqual({ ok: true, input: { ggufFile: `${HOME}/m.gguf`, name: 'smol' } });
  });

  it('refuses a relative path, one outside the home, and one that leaves it through ..', () => {
    for (const file of ['m.gguf', '/tmp/m.gguf', `${HOME}/../m.gguf`, `${HOME}x/m.gguf`, `${HOME}/in/../../.envace2/m.gguf`]) {
      const r = ggufImportRequest(HOME, file, 'smol');
      expect(r.ok, file).toBe(false);
      if (!r.ok) expect(r.issues.file, file).toMatch(/full path|inside the data home/);
    }
    expect(insideFolder('C:\\Users\\Ada\\envace\\m.gguf', 'c:\\users\\ada\\envace')).toBe(true);
    expect(insideFolder('C:\\Users\\Ada\\envace-2\\m.gguf', 'C:\\Users\\Ada\\envace')).toBe(false);
  });

  it('checks the name, typed or taken from the file, by the folder-name rule', () => {
    const typed = ggufImportRequest(HOME, `${HOME}/m.gguf`, '../runs');
    expect(typed.ok === false && typed.issues.name).toMatch(/a model name "..\/runs" must use only letters/);
    const fromFile = ggufImportRequest(HOME, `${HOME}/-bad.gguf`, '');
    expect(fromFile.ok === false && fromFile.issues.name).toMatch(/the name taken from the file .*; type a name$/);
  });
});

describe('Models view: GGUF import form', () => {
  it('sends models.import with the file and name, shows what runs with the time spent, then the model, and lists it', async () => {
    let finish: (m: ModelSummary) => void = () => {};
    let listed: ModelSummary[] = [];
    const fake = show(
      () => new Promise<ModelSummary>((resolve) => (finish = resolve)),
      () => listed,
    );
    await screen.findByTestId('models-empty');
    type('gguf-file', `${HOME}/in/SmolLM2-135M-Instruct.Q4_1.gguf`);
    expect((screen.getByTestId('gguf-name') as HTMLInputElement).placeholder).toBe('SmolLM2-135M-Instruct.Q4_1');
    type('gguf-name', 'smollm2');
    fireEvent.click(screen.getByTestId('gguf-submit'));
    const progress = await screen.findByTestId('gguf-progress');
    expect(progress.textContent).toMatch(/^ Importing smollm2: reading the file, dequantising its tensors to float32, writing the model folder · \d/);
    expect((screen.getByTestId('gguf-submit') as HTMLButtonElement).disabled).toBe(true);
    expect(fake.calls.find((c) => c.method === 'models.import')?.input).toEqual({ ggufFile: `${HOME}/in/SmolLM2-135M-Instruct.Q4_1.gguf`, name: 'smollm2' });
    listed = [smol];
    await act(async () => finish(smol));
    expect((await screen.findByTestId('gguf-imported')).textContent).toContain('Imported smollm2: llama, 134,515,008 parameters, 30 layers × 576');
    expect(screen.queryByTestId('gguf-progress')).toBeNull();
    await waitFor(() => expect(screen.getByTestId('models-list').textContent).toContain('smollm2'));
  });

  it('says why a path outside the data home is not sent, and sends nothing', async () => {
    const fake = show(() => smol);
    await screen.findByTestId('gguf-file');
    type('gguf-file', '/tmp/SmolLM2.gguf');
    fireEvent.click(screen.getByTestId('gguf-submit'));
    expect((await screen.findByRole('alert')).textContent).toContain(`must be inside the data home (${HOME})`);
    expect(fake.calls.some((c) => c.method === 'models.import')).toBe(false);
  });

  it("shows the engine's typed refusal as text and lets the person try again", async () => {
    let answer: () => unknown = () => {
      throw new ContractError('invalid_input', 'GGUF tensor blk.0.attn_q.weight has type Q3_K, which this import does not read (it reads F32, F16, …)');
    };
    show(() => answer());
    await screen.findByTestId('gguf-file');
    type('gguf-file', `${HOME}/q3.gguf`);
    fireEvent.click(screen.getByTestId('gguf-submit'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The request was refused');
    expect(alert.textContent).toContain('has type Q3_K');
    answer = () => {
      throw new ContractError('conflict', "a model named 'q3' already exists");
    };
    fireEvent.click(screen.getByTestId('gguf-submit'));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain("a model named 'q3' already exists"));
  });
});

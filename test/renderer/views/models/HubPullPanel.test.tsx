// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError, type ModelsPullOutput } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { ModelsView } from '../../../../renderer/src/views/models/ModelsView';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

const summary = { name: 'SmolLM2-135M', source: 'hf://tiny/SmolLM2-135M@' + 'a'.repeat(40), importedAt: '2026-12-03T12:00:00Z', architecture: 'LlamaForCausalLM', paramCount: 134_515_008, vocabSize: 49_152, dModel: 576, nLayers: 30 };
const hits = [
  { id: 'tiny/SmolLM2-135M', downloads: 1234, likes: 5, gated: false, pipelineTag: 'text-generation', lastModified: null },
  { id: 'meta/Llama-gated', downloads: 99, likes: 1, gated: true, pipelineTag: 'text-generation', lastModified: null },
];

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

function renderView(pull: (input: unknown) => unknown) {
  const imported: (typeof summary)[] = [];
  const fake = fakeApi({
    'models.list': () => ({ items: [...imported] }),
    'models.search': (input) => ({ endpoint: 'http://127.0.0.1:9', items: (input as { query: string }).query === 'nothing' ? [] : hits }),
    'models.pull': async (input) => {
      const r = await pull(input);
      imported.push(summary);
      return r;
    },
  });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <ModelsView />
    </ConnectionProvider>,
  );
  return fake;
}

const search = async (q: string) => {
  fireEvent.change(await screen.findByLabelText('Search'), { target: { value: q } });
  fireEvent.click(screen.getByTestId('hub-search'));
};

describe('Models view: Hub search and pull', () => {
  it('says what to do when nothing is imported and nothing searched', async () => {
    renderView(() => null);
    expect((await screen.findByTestId('models-empty')).textContent).toContain('Pull one from the Hugging Face Hub');
    expect(screen.getByTestId('hub-empty').textContent).toContain('HF_TOKEN');
  });

  it('searches, pulls a result with a progress bar and ETA from the engine events, then lists the model', async () => {
    const answer = deferred<ModelsPullOutput>();
    const fake = renderView(() => answer.promise);
    await search('smol');
    const table = await screen.findByTestId('hub-results');
    expect(within(table).getByText('gated (HF_TOKEN)')).toBeTruthy();
    fireEvent.click(within(table.querySelector('tr[data-repo="tiny/SmolLM2-135M"]') as HTMLElement).getByRole('button', { name: 'Pull' }));
    await waitFor(() => expect(fake.calls.some((c) => c.method === 'models.pull')).toBe(true));
    const { pullId, repo } = fake.calls.find((c) => c.method === 'models.pull')!.input as { pullId: string; repo: string };
    expect(repo).toBe('tiny/SmolLM2-135M');
    // Another pull's events are not this one's.
    fake.emit('models.pull.progress', { pullId: 'someone-else', repo, phase: 'downloading', file: 'x', doneBytes: 9, totalBytes: 10, fraction: 0.9, etaMs: 1000 });
    fake.emit('models.pull.progress', { pullId, repo, phase: 'downloading', file: 'model.safetensors', doneBytes: 2 ** 20, totalBytes: 4 * 2 ** 20, fraction: 0.25, etaMs: 90_000 });
    const bar = (await screen.findByRole('progressbar', { name: `${repo} download` })) as HTMLProgressElement;
    await waitFor(() => expect(bar.value).toBe(0.25));
    expect(screen.getByTestId('hub-pull-progress').textContent).toContain('model.safetensors');
    expect(screen.getByTestId('hub-pull-eta').textContent).toMatch(/left/);
    answer.resolve({ model: summary, pullId, repo, revision: 'main', commit: 'a'.repeat(40), fromCache: false, downloadedBytes: 4 * 2 ** 20, totalBytes: 4 * 2 ** 20, files: ['config.json'], note: null });
    expect((await screen.findByTestId('hub-pull-done')).textContent).toContain('Imported SmolLM2-135M');
    await waitFor(() => expect(within(screen.getByTestId('models-list')).getByText('SmolLM2-135M')).toBeTruthy());
    expect(screen.queryByTestId('hub-pull-progress')).toBeNull();
  });

  it("shows the engine's error as text (HF_TOKEN named) and an empty search as such; an id is offered as a direct pull", async () => {
    renderView(() => {
      throw new ContractError('not_available', 'http://127.0.0.1:9/api/models/meta/Llama-gated/revision/main is gated: set HF_TOKEN to a Hugging Face access token that can read it');
    });
    await search('nothing');
    expect((await screen.findByTestId('hub-no-results')).textContent).toContain('“nothing”');
    await search('meta/Llama-gated@v1');
    fireEvent.click(await screen.findByTestId('hub-pull-direct'));
    expect((await screen.findByRole('alert')).textContent).toMatch(/^meta\/Llama-gated@v1: .*gated: set HF_TOKEN/);
  });
});

import { useState, type FormEvent } from 'react';
import type { ModelSummary } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { Elapsed } from '../../components/Elapsed';
import { ErrorNotice } from '../../components/Notice';
import { useCall } from '../../hooks/useCall';
import { Field } from '../envs/McpFields';
import { defaultModelName, ggufImportRequest } from './gguf-import-form';

/**
 * Import a llama.cpp GGUF file (models.import with ggufFile): the engine dequantises it to float32
 * and writes an HF folder under models/. No job reports a fraction for it, so while it runs the form
 * shows what is happening and the time spent (SmolLM2-135M Q4_1: about 5 s).
 */
export function GgufImportForm({ onImported }: { onImported: (model: ModelSummary) => void }) {
  const api = useApi();
  const info = useCall('system.info', {});
  const dataHome = info.data?.dataHome;
  const [file, setFile] = useState('');
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [since, setSince] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [imported, setImported] = useState<ModelSummary | null>(null);
  const request = ggufImportRequest(dataHome, file, name);
  // An empty form is not told off before anything was typed or sent.
  const issues = request.ok || (!touched && file === '' && name === '') ? {} : request.issues;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!request.ok || since !== null) return;
    setSince(Date.now());
    setError(null);
    setImported(null);
    try {
      const model = await api.call('models.import', request.input);
      setImported(model);
      onImported(model);
    } catch (e) {
      setError(e);
    } finally {
      setSince(null);
    }
  };

  const shownName = name.trim() || defaultModelName(file);
  return (
    <form className="card stack" onSubmit={submit} data-testid="gguf-import" aria-labelledby="gguf-import-title">
      <h2 id="gguf-import-title">Import a GGUF file</h2>
      <p className="muted">
        A llama.cpp model file (LM Studio, Ollama): architectures llama, qwen2 and qwen3; tensors F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
        Q4_K, Q5_K and Q6_K, dequantised to float32. Its tokenizer and chat template come along; runs can then start from it.
      </p>
      <Field
        label="GGUF file"
        issue={issues.file}
        hint={
          <>
            The full path. From the workbench window it must be inside the data home{dataHome ? <> (<code>{dataHome}</code>)</> : null}; from anywhere on disk
            use <code>npx envace import --gguf FILE</code>.
          </>
        }
      >
        <input
          type="text"
          className="mono"
          value={file}
          onChange={(e) => setFile(e.target.value)}
          placeholder={dataHome ? `${dataHome}/SmolLM2-135M-Instruct.Q4_1.gguf` : 'model.gguf'}
          aria-invalid={issues.file ? true : undefined}
          data-testid="gguf-file"
        />
      </Field>
      <Field label="Name (optional)" issue={issues.name} hint={<>Its folder under models/ and the name New run lists it by{defaultModelName(file) ? <>; left empty: <code>{defaultModelName(file)}</code></> : null}.</>}>
        <input
          type="text"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={defaultModelName(file) || 'from the file name'}
          aria-invalid={issues.name ? true : undefined}
          data-testid="gguf-name"
        />
      </Field>
      <div className="row">
        <button type="submit" className="button button-primary" disabled={since !== null || (touched && !request.ok)} data-testid="gguf-submit">
          {since !== null ? 'Importing…' : 'Import'}
        </button>
      </div>
      {since !== null && (
        <p className="loading" role="status" data-testid="gguf-progress">
          <span className="spinner" aria-hidden="true" /> Importing {shownName}: reading the file, dequantising its tensors to float32, writing the model folder ·{' '}
          <Elapsed since={since} />
        </p>
      )}
      {error ? <ErrorNotice error={error} /> : null}
      {imported && (
        <p className="notice" role="status" data-testid="gguf-imported">
          Imported <strong>{imported.name}</strong>: {imported.architecture}, {imported.paramCount.toLocaleString('en-US')} parameters, {imported.nLayers} layers × {imported.dModel},
          vocabulary {imported.vocabSize.toLocaleString('en-US')}. New run lists it under the models.
        </p>
      )}
    </form>
  );
}

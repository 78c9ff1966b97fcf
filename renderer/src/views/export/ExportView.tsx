import { CheckpointSelect } from '../../components/RunCheckpointFields';
import { useState, type FormEvent } from 'react';
import { ExportFormat, GgufDtype, LoraBaseChoice, type ExportRecord, type ModelSummary, type Run } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { EmptyState, ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { RelativeTime } from '../../components/RelativeTime';
import { formatBytes, formatDuration } from '../../format/units';
import { useCall } from '../../hooks/useCall';
import { useElapsed } from '../../hooks/useElapsed';
import { useThrottledEvents } from '../../hooks/useEvents';
import {
  buildExportInput,
  describeExportSource,
  exportableRuns,
  exportsFolder,
  formatInfo,
  formatUnavailable,
  loraBaseChoices,
  resolveDestination,
  totalBytes,
  type ExportSource,
} from './export-form';
import { ExportResult } from './ExportResult';

interface SourcePickerProps {
  /** Runs with at least one checkpoint. */
  candidates: Run[];
  models: ModelSummary[];
  source: ExportSource | null;
  onChange: (next: ExportSource | null) => void;
  /** Models may have been imported (CLI, another window) since the list was fetched. */
  onShowModels: () => void;
}

function SourcePicker({ candidates, models: modelItems, source, onChange, onShowModels }: SourcePickerProps) {
  const kind = source?.kind ?? 'run';
  const run = source?.kind === 'run' ? candidates.find((r) => r.id === source.runId) : undefined;
  return (
    <fieldset className="form-rows export-source">
      <legend>Source</legend>
      <div className="segmented" role="radiogroup" aria-label="Export from">
        <label>
          <input
            type="radio"
            name="source-kind"
            checked={kind === 'run'}
            onChange={() => onChange(candidates[0] ? { kind: 'run', runId: candidates[0].id, step: null } : null)}
          />
          a run's checkpoint
        </label>
        <label>
          <input
            type="radio"
            name="source-kind"
            checked={kind === 'model'}
            onChange={() => (onShowModels(), onChange({ kind: 'model', model: modelItems[0]?.name ?? '' }))}
          />
          an imported model
        </label>
      </div>
      {kind === 'run' &&
        (candidates.length === 0 ? (
          <p className="muted" data-testid="no-checkpoints">
            No run has a checkpoint yet. Runs write one every <code>checkpointEvery</code> steps while they train.
          </p>
        ) : (
          <div className="filters">
            <label className="field-inline">
              <span>Run</span>
              <select value={run?.id ?? ''} onChange={(e) => onChange({ kind: 'run', runId: e.target.value, step: null })} data-testid="export-run">
                <option value="" disabled>
                  pick a run
                </option>
                {candidates.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name} ({r.id}, {r.status})
                  </option>
                ))}
              </select>
            </label>
            {run && source?.kind === 'run' && (
              <CheckpointSelect
                run={run}
                value={source.step === null || source.step === undefined ? '' : String(source.step)}
                onChange={(v) => onChange({ ...source, step: v === '' ? null : Number(v) })}
                testId="export-step"
              />
            )}
          </div>
        ))}
      {kind === 'model' &&
        (modelItems.length === 0 ? (
          <p className="muted" data-testid="no-models">
            No imported models. Import a Llama/Qwen-style Hugging Face folder with <code>npx envace import --hf DIR</code>; it then appears here.
          </p>
        ) : (
          <label className="field-inline">
            <span>Model</span>
            <select
              value={source?.kind === 'model' ? source.model : ''}
              onChange={(e) => onChange({ kind: 'model', model: e.target.value })}
              data-testid="export-model"
            >
              {modelItems.map((m) => (
                <option key={m.name} value={m.name}>
                  {m.name} ({m.architecture}, {m.paramCount.toLocaleString('en-US')} parameters)
                </option>
              ))}
            </select>
          </label>
        ))}
    </fieldset>
  );
}

function EarlierExports({ items }: { items: ExportRecord[] }) {
  if (items.length === 0) return <p className="muted">No exports yet.</p>;
  return (
    <ul className="list export-list" aria-label="Earlier exports" data-testid="export-list">
      {items.map((record) => (
        <li key={record.id}>
          <details>
            <summary>
              <span className="badge badge-neutral">{record.format}</span> {describeExportSource(record)} · {record.files.length} files ·{' '}
              {formatBytes(totalBytes(record.files))} · <RelativeTime time={record.createdAt} />
            </summary>
            <ExportResult record={record} />
          </details>
        </li>
      ))}
    </ul>
  );
}

/** Export a checkpoint or an imported model as a file other tools load, and see what was written. */
export function ExportView({ runId }: { runId?: string }) {
  const api = useApi();
  const info = useCall('system.info', {});
  const earlier = useCall('exports.list', {});
  const [source, setSource] = useState<ExportSource | null>(null);
  const [picked, setFormat] = useState<ExportFormat>('hf');
  const [ggufDtype, setGgufDtype] = useState<GgufDtype>('f16');
  const [loraBase, setLoraBase] = useState<LoraBaseChoice>('auto');
  const [folder, setFolder] = useState('');
  const [force, setForce] = useState(false);
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const [result, setResult] = useState<ExportRecord | null>(null);
  const [error, setError] = useState<unknown>(null);
  const elapsed = useElapsed(startedAt);

  const runs = useCall('runs.list', { limit: 200 });
  const models = useCall('models.list', {});
  // A run that trains on while this view is open gains checkpoints; keep the pickers current.
  useThrottledEvents(['run.status', 'run.progress'], runs.reload, 2000);
  const candidates = exportableRuns(runs.data?.items ?? []);
  // Until the person picks: the run named in the link (#/export?run=…), else the newest with a checkpoint.
  const firstRun = candidates.find((r) => r.id === runId) ?? candidates[0];
  const firstModel = models.data?.items[0]?.name;
  const effective: ExportSource | null =
    source?.kind === 'model' && source.model === '' && firstModel
      ? { kind: 'model', model: firstModel }
      : (source ?? (firstRun ? { kind: 'run', runId: firstRun.id, step: null } : null));
  const dataHome = info.data?.dataHome;
  const destination = dataHome ? resolveDestination(dataHome, folder) : null;
  // A format the source cannot give (LoRA from a run without adapters) falls back to the HF folder.
  const format = formatUnavailable(picked, effective, candidates) === null ? picked : 'hf';
  const ready = effective !== null && (effective.kind === 'run' || effective.model !== '') && destination?.ok === true && startedAt === null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!ready || !destination?.ok || !effective) return;
    setStartedAt(Date.now());
    setError(null);
    // The previous result stays until a new one replaces it: a refusal must not wipe what was written.
    try {
      setResult(await api.call('exports.create', buildExportInput(effective, format, destination.outDir, ggufDtype, force, loraBase)));
      earlier.reload();
    } catch (e) {
      setError(e);
    } finally {
      setStartedAt(null);
    }
  };

  return (
    <>
      <PageHeader title="Export" subtitle="Write a checkpoint or an imported model as files other tools load" />
      {runs.data && models.data && candidates.length === 0 && models.data.items.length === 0 && (
        <EmptyState title="Nothing to export yet" testId="export-empty">
          <p>Train a run (it writes checkpoints as it goes) or import a Hugging Face model; either can then be exported here.</p>
        </EmptyState>
      )}
      <div className="grid-2">
        <form className="card" onSubmit={submit} aria-labelledby="export-form-title" data-testid="export-form">
          <h2 id="export-form-title">New export</h2>
          {runs.error || models.error ? <ErrorNotice error={runs.error ?? models.error} onRetry={() => (runs.reload(), models.reload())} /> : null}
          {runs.data && models.data ? (
            <SourcePicker candidates={candidates} models={models.data.items} source={effective} onChange={setSource} onShowModels={models.reload} />
          ) : (
            !runs.error && !models.error && <Loading what="runs and models" />
          )}
          <fieldset className="form-rows">
            <legend>Format</legend>
            <div className="segmented" role="radiogroup" aria-label="Format">
              {ExportFormat.options.map((f) => (
                <label key={f} title={formatUnavailable(f, effective, candidates) ?? undefined}>
                  <input
                    type="radio"
                    name="format"
                    value={f}
                    checked={format === f}
                    disabled={formatUnavailable(f, effective, candidates) !== null}
                    onChange={() => setFormat(f)}
                  />
                  {formatInfo[f].label}
                </label>
              ))}
            </div>
            <p className="muted">Writes {formatInfo[format].writes}.</p>
            {formatUnavailable('lora', effective, candidates) !== null && (
              <p className="muted" data-testid="lora-unavailable">
                LoRA adapter unavailable: {formatUnavailable('lora', effective, candidates)}.
              </p>
            )}
            {format === 'lora' && (
              <label className="field-inline">
                <span>Base model</span>
                <select value={loraBase} onChange={(e) => setLoraBase(e.target.value as LoraBaseChoice)} data-testid="lora-base">
                  {LoraBaseChoice.options.map((c) => (
                    <option key={c} value={c}>
                      {loraBaseChoices[c]}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {format === 'gguf' && (
              <label className="field-inline">
                <span>Weights as</span>
                <select value={ggufDtype} onChange={(e) => setGgufDtype(e.target.value as GgufDtype)} data-testid="gguf-dtype">
                  <option value="f16">f16 (half the size)</option>
                  <option value="q8_0">q8_0 (a quarter of f32, llama.cpp's 8-bit blocks)</option>
                  <option value="f32">f32 (exact)</option>
                </select>
              </label>
            )}
          </fieldset>
          <fieldset className="form-rows">
            <legend>Destination</legend>
            <label className="field-inline">
              <span>Folder name</span>
              <input
                type="text"
                value={folder}
                onChange={(e) => setFolder(e.target.value)}
                placeholder="new folder, named for you"
                aria-invalid={destination?.ok === false ? true : undefined}
                data-testid="export-folder-name"
              />
            </label>
            {destination?.ok === false && (
              <p className="knob-issue" role="alert">
                {destination.issue}
              </p>
            )}
            <p className="muted">
              Written inside {dataHome ? <code>{exportsFolder(dataHome)}</code> : 'the data home’s exports folder'}
              {destination?.ok && destination.outDir ? (
                <>
                  {' '}
                  as <code>{destination.outDir}</code>
                </>
              ) : null}
              . From the workbench window exports stay in the data home; a folder picker anywhere on disk arrives with the desktop app's native
              dialog, and <code>npx envace export --out DIR</code> writes anywhere today.
            </p>
            <label className="start-toggle">
              <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} />
              <span>Replace an earlier export in that folder (only a folder holding nothing but export files)</span>
            </label>
          </fieldset>
          <div className="row">
            <button type="submit" className="button button-primary" disabled={!ready} data-testid="export-submit">
              {startedAt !== null ? 'Exporting…' : 'Export'}
            </button>
            {startedAt !== null && (
              <span className="loading" role="status" data-testid="export-progress">
                <span className="spinner" aria-hidden="true" /> Writing {formatInfo[format].label} files… {formatDuration(elapsed)}
              </span>
            )}
          </div>
          {error ? <ErrorNotice error={error} /> : null}
        </form>
        <section className="card" aria-labelledby="export-result-title">
          <h2 id="export-result-title">Result</h2>
          {result ? (
            <ExportResult record={result} />
          ) : (
            <p className="muted">{startedAt !== null ? 'The files appear here when the export finishes.' : 'Run an export to see what it wrote.'}</p>
          )}
        </section>
      </div>
      <section className="stack" aria-labelledby="earlier-exports">
        <h2 id="earlier-exports">Earlier exports</h2>
        {earlier.error ? <ErrorNotice error={earlier.error} onRetry={earlier.reload} /> : null}
        {!earlier.data && !earlier.error && <Loading what="exports" />}
        {earlier.data && <EarlierExports items={earlier.data.items} />}
      </section>
    </>
  );
}

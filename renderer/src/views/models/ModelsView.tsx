import { EmptyState, ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { useCall } from '../../hooks/useCall';
import { GgufImportForm } from './GgufImportForm';
import { HubPullPanel } from './HubPullPanel';

/** Imported models (what New run can start from) and the ways to bring one in, each its own component. */
export function ModelsView() {
  const models = useCall('models.list', {});
  const items = models.data?.items ?? [];
  return (
    <>
      <PageHeader title="Models" subtitle="Imported models runs can start from" actions={<button type="button" className="button" onClick={models.reload}>Refresh</button>} />
      {models.error ? <ErrorNotice error={models.error} onRetry={models.reload} /> : null}
      {!models.data && !models.error && <Loading what="imported models" />}
      {models.data && items.length === 0 && (
        <EmptyState title="No imported models yet" testId="models-empty">
          <p>Pull one from the Hugging Face Hub or import a GGUF file below, or import a Hugging Face folder from a terminal: <code>npx envace import --hf DIR</code>.</p>
        </EmptyState>
      )}
      {items.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="models-list">
            <thead>
              <tr>
                <th>Name</th>
                <th>Architecture</th>
                <th>Parameters</th>
                <th>Layers × width</th>
                <th>Vocabulary</th>
                <th>Source</th>
              </tr>
            </thead>
            <tbody>
              {items.map((m) => (
                <tr key={m.name}>
                  <td className="mono">{m.name}</td>
                  <td>{m.architecture}</td>
                  <td>{(m.paramCount / 1e6).toFixed(2)}M</td>
                  <td>
                    {m.nLayers} × {m.dModel}
                  </td>
                  <td>{m.vocabSize.toLocaleString('en-US')}</td>
                  <td className="mono wrap-anywhere">{m.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <GgufImportForm onImported={models.reload} />
      <HubPullPanel onPulled={models.reload} />
    </>
  );
}

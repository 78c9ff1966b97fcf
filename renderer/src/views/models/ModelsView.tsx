import { ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { useCall } from '../../hooks/useCall';
import { GgufImportForm } from './GgufImportForm';

/** Imported models (models.list) and the ways to bring one in; each way is its own component. */
export function ModelsView() {
  const models = useCall('models.list', {});
  return (
    <>
      <PageHeader title="Models" subtitle="Pretrained models runs can start from: imported here or with npx envace import" />
      <section className="card" aria-labelledby="models-list-title" data-testid="models-list">
        <h2 id="models-list-title">Imported models</h2>
        {models.error ? <ErrorNotice error={models.error} onRetry={models.reload} /> : null}
        {!models.data && !models.error && <Loading what="models" />}
        {models.data && models.data.items.length === 0 && <p className="muted">None yet: import a GGUF file below.</p>}
        {models.data && models.data.items.length > 0 && (
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Architecture</th>
                  <th className="numeric">Parameters</th>
                  <th className="numeric">Layers × width</th>
                  <th>Source</th>
                </tr>
              </thead>
              <tbody>
                {models.data.items.map((m) => (
                  <tr key={m.name}>
                    <td>{m.name}</td>
                    <td>{m.architecture}</td>
                    <td className="numeric">{m.paramCount.toLocaleString('en-US')}</td>
                    <td className="numeric">
                      {m.nLayers} × {m.dModel}
                    </td>
                    <td className="mono">{m.source}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <GgufImportForm onImported={models.reload} />
    </>
  );
}

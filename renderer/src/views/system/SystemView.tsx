import { ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { formatBytes } from '../../format/units';
import { useCall } from '../../hooks/useCall';
import { JobsPanel } from '../jobs/JobsPanel';
import { GpuSetupPanel } from './GpuSetupPanel';

export function SystemView() {
  const info = useCall('system.info', {});
  const data = info.data;
  return (
    <>
      <PageHeader title="System" subtitle="What this engine runs on, and what it is doing" actions={<button type="button" className="button" onClick={info.reload}>Refresh</button>} />
      {info.error ? <ErrorNotice error={info.error} onRetry={info.reload} /> : null}
      {!data && !info.error && <Loading what="system information (probing execution providers)" />}
      {data && (
        <div className="grid-2">
          <section className="card" aria-labelledby="sys-providers">
            <h2 id="sys-providers">Execution providers</h2>
            <ul className="provider-list" data-testid="providers">
              {data.providers.map((p) => (
                <li key={p.name} data-provider={p.name} data-available={p.available}>
                  <span className={`badge ${p.available ? 'badge-good' : 'badge-neutral'}`}>{p.available ? 'available' : 'unavailable'}</span>
                  <strong>{p.name}</strong>
                  <span className="muted provider-detail" title={p.detail}>{p.detail}</span>
                </li>
              ))}
            </ul>
            <GpuSetupPanel />
          </section>
          <section className="card" aria-labelledby="sys-machine">
            <h2 id="sys-machine">Machine</h2>
            <dl className="facts">
              <dt>CPUs</dt>
              <dd data-testid="cpu-count">{data.cpuCount}</dd>
              <dt>Memory</dt>
              <dd data-testid="memory">{formatBytes(data.totalMemoryBytes)}</dd>
              <dt>Platform</dt>
              <dd>
                {data.platform} / {data.arch}
              </dd>
              <dt>Data home</dt>
              <dd className="mono" data-testid="data-home">
                {data.dataHome}
              </dd>
              <dt>Transport</dt>
              <dd data-testid="transport">{data.transport}</dd>
            </dl>
          </section>
          <section className="card" aria-labelledby="sys-versions">
            <h2 id="sys-versions">Versions</h2>
            <dl className="facts">
              <dt>{data.app.name}</dt>
              <dd>{data.app.version}</dd>
              <dt>Node</dt>
              <dd>{data.versions.node}</dd>
              <dt>V8</dt>
              <dd>{data.versions.v8}</dd>
              <dt>Electron</dt>
              <dd>{data.versions.electron ?? 'not running under Electron (web mode)'}</dd>
              <dt>ONNX Runtime</dt>
              <dd>{data.versions.onnxruntime}</dd>
              <dt>SQLite</dt>
              <dd>{data.versions.sqlite}</dd>
            </dl>
          </section>
        </div>
      )}
      <div className="stack">
        <JobsPanel />
      </div>
    </>
  );
}

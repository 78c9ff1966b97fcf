import { useState } from 'react';
import type { GpuSetupOutput } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { ErrorNotice } from '../../components/Notice';
import { formatDuration } from '../../format/units';
import { useElapsed } from '../../hooks/useElapsed';

const STATUS_TEXT: Record<GpuSetupOutput['status'], string> = {
  installed: 'CUDA provider installed',
  already_installed: 'CUDA provider already installed',
  dry_run: 'dry run',
  failed: 'the installer failed',
};

/**
 * "Set up GPU": system.gpuSetup runs onnxruntime-node's installer for its CUDA provider in the
 * engine. Without an NVIDIA GPU the engine answers not_available with what it looked for, which
 * is shown as is; nothing was changed then.
 */
export function GpuSetupPanel() {
  const api = useApi();
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const [result, setResult] = useState<GpuSetupOutput | null>(null);
  const [error, setError] = useState<unknown>(null);
  const elapsed = useElapsed(startedAt);

  const run = async () => {
    setStartedAt(Date.now());
    setError(null);
    setResult(null);
    try {
      setResult(await api.call('system.gpuSetup', { action: 'install' }));
    } catch (e) {
      setError(e);
    } finally {
      setStartedAt(null);
    }
  };

  const cuda = result?.providers.find((p) => p.name === 'cuda');
  return (
    <div className="gpu-setup" data-testid="gpu-setup">
      <div className="row">
        <button type="button" className="button" onClick={run} disabled={startedAt !== null} data-testid="gpu-setup-run">
          {startedAt !== null ? 'Setting up…' : 'Set up NVIDIA GPU (CUDA)'}
        </button>
        {startedAt !== null && (
          <span className="loading" role="status" data-testid="gpu-setup-progress">
            <span className="spinner" aria-hidden="true" /> Running onnxruntime-node's installer (downloads a few hundred MB)… {formatDuration(elapsed)}
          </span>
        )}
      </div>
      {error ? <ErrorNotice error={error} /> : null}
      {result && (
        <div data-testid="gpu-setup-result">
          <p>
            <span className={`badge ${cuda?.available ? 'badge-good' : result.status === 'failed' ? 'badge-bad' : 'badge-neutral'}`}>
              {STATUS_TEXT[result.status]}
              {result.exitCode !== null && result.exitCode !== 0 ? ` (exit ${result.exitCode})` : ''}
            </span>{' '}
            <span className="muted">{result.gpu}</span>
          </p>
          <p className="muted mono wrap-anywhere">{result.command}</p>
          {result.output.length > 0 && (
            <ol className="log-lines" aria-label="Installer output" data-testid="gpu-setup-output">
              {result.output.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ol>
          )}
          {result.providers.length > 0 && (
            <ul className="provider-list" aria-label="Providers after setup" data-testid="gpu-setup-providers">
              {result.providers.map((p) => (
                <li key={p.name} data-provider={p.name} data-available={p.available}>
                  <span className={`badge ${p.available ? 'badge-good' : 'badge-neutral'}`}>{p.available ? 'loads' : 'does not load'}</span>
                  <strong>{p.name}</strong>
                  <span className="muted provider-detail">{p.detail}</span>
                </li>
              ))}
            </ul>
          )}
          {/* The engine probed its providers once at start; the fresh probe above is what a restart will see. */}
          {cuda?.available && <p className="muted">New runs use CUDA after the workbench restarts.</p>}
        </div>
      )}
    </div>
  );
}

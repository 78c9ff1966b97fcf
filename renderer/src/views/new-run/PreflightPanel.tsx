import type { z } from 'zod';
import type { RunsPreflightOutput } from '../../../../electron/contract';
import { formatBytes } from '../../format/units';

type Preflight = z.infer<typeof RunsPreflightOutput>;

/** The engine's pre-flight answer: each check with what it found, and the figures. */
export function PreflightPanel({ result }: { result: Preflight }) {
  return (
    <section className={`card notice ${result.ok ? 'notice-info' : 'notice-warn'}`} aria-label="Pre-flight check" data-testid="preflight">
      <h2>{result.ok ? 'Pre-flight: ready to train' : 'Pre-flight: fix these before starting'}</h2>
      <ul className="preflight-list">
        {result.checks.map((check) => (
          <li key={check.name} data-ok={check.ok}>
            <strong>{check.ok ? '✓' : '✗'} {check.name}</strong> — {check.detail}
          </li>
        ))}
      </ul>
      <p className="muted">
        {result.plannedSteps} training steps
        {result.params !== null ? ` · ${(result.params / 1e6).toFixed(2)}M parameters` : ''}
        {result.memoryEstimateBytes !== null ? ` · about ${formatBytes(result.memoryEstimateBytes)} of memory` : ''}
      </p>
    </section>
  );
}

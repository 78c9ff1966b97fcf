import type { z } from 'zod';
import type { RunsPreflightOutput } from '../../../../electron/contract';
import { formatBytes, formatDuration } from '../../format/units';

type Preflight = z.infer<typeof RunsPreflightOutput>;

/** ✓ passes, ⚠ passes but the run will likely learn little (a heuristic caution), ✗ fails the run. */
const mark = (check: Preflight['checks'][number]) => (!check.ok ? '✗' : check.warning ? '⚠' : '✓');

/** The engine's pre-flight answer: each check with what it found, and the figures (time and disk estimated). */
export function PreflightPanel({ result }: { result: Preflight }) {
  const estimate = result.estimate;
  return (
    <section className={`card notice ${result.ok ? 'notice-info' : 'notice-warn'}`} aria-label="Pre-flight check" data-testid="preflight">
      <h2>{result.ok ? 'Pre-flight: ready to train' : 'Pre-flight: fix these before starting'}</h2>
      <ul className="preflight-list">
        {result.checks.map((check) => (
          <li key={check.name} data-ok={check.ok} data-warning={check.warning ?? false}>
            <strong>
              {mark(check)} {check.name}
            </strong>{' '}
            — {check.detail}
          </li>
        ))}
      </ul>
      <p className="muted">
        {result.plannedSteps} training steps
        {result.params !== null ? ` · ${(result.params / 1e6).toFixed(2)}M parameters` : ''}
        {result.memoryEstimateBytes !== null ? ` · about ${formatBytes(result.memoryEstimateBytes)} of memory` : ''}
      </p>
      {estimate && (
        <dl className="preflight-estimate" data-testid="preflight-estimate">
          <dt>Time</dt>
          <dd title={estimate.secondsBasis}>{estimate.seconds !== null ? `about ${formatDuration(estimate.seconds * 1000)}` : 'not estimated'} — {estimate.secondsBasis}</dd>
          <dt>Disk</dt>
          <dd title={estimate.diskBasis}>
            {estimate.diskBytes !== null ? `about ${formatBytes(estimate.diskBytes)} of checkpoints` : 'not estimated'}
            {estimate.checkpointBytes !== null ? ` (${estimate.checkpointsKept} × ${formatBytes(estimate.checkpointBytes)})` : ''} — {estimate.diskBasis}
          </dd>
        </dl>
      )}
    </section>
  );
}

import type { Points } from '../../charts/series';
import { routeHref } from '../../app/routes';
import { useCall } from '../../hooks/useCall';
import { useThrottledEvents } from '../../hooks/useEvents';
import { heldoutResult, percent } from './result';

/**
 * What the run achieved, in one line a newcomer can read: held-out success before training (the
 * step-0 evaluation) → at its latest evaluation, and the checkpoint worth evaluating or exporting.
 */
export function ResultCard({ runId, success }: { runId: string; success: Points | undefined }) {
  const run = useCall('runs.get', { id: runId });
  useThrottledEvents(['run.status'], run.reload, 1000);
  const r = run.data;
  const result = r ? heldoutResult(success, r.checkpoints.map((c) => c.step)) : null;
  if (!r || !result) return null;
  const finished = r.status === 'completed';
  const from = result.before ? `untrained (step 0)` : `step ${success!.steps[0]}`;
  const change = result.before ? result.after.success - result.before.success : null;
  return (
    <section className={`card result-card${finished ? ' result-card-final' : ''}`} data-testid="result-card" aria-label="Result on held-out tasks">
      <h3>
        {finished ? 'Result' : r.status === 'running' ? 'So far' : `Result (run ${r.status})`}: held-out success{' '}
        <span className="numeric" data-testid="result-before-after">
          {result.before ? `${percent(result.before.success)} → ` : ''}
          {percent(result.after.success)}
        </span>
      </h3>
      <p className="muted">
        {from} → step {result.after.step}, greedy, on the environment&apos;s held-out tasks
        {change !== null ? ` (${change >= 0 ? '+' : '−'}${Math.abs(Math.round(change * 100))} points)` : ''}; {result.evaluations} evaluation
        {result.evaluations === 1 ? '' : 's'} after training began.
      </p>
      {result.best ? (
        <p data-testid="result-best">
          Best checkpoint: <strong>step {result.best.step}</strong> ({percent(result.best.success)} held-out).{' '}
          <a href={routeHref('evaluate', { run: runId, step: String(result.best.step) })}>Evaluate it with rehearsal →</a>{' '}
          <a href={routeHref('export', { run: runId })}>Export →</a>
        </p>
      ) : (
        <p className="muted" data-testid="result-best">
          No checkpoint of an evaluated step is kept yet (checkpoints are written every {r.config.checkpointEvery} steps).
        </p>
      )}
    </section>
  );
}

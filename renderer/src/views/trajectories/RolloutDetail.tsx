import { useState } from 'react';
import { outcomeLabel } from '../../format/outcome';
import type { MethodOutput, Turn } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { ErrorNotice, Loading } from '../../components/Notice';
import { formatNumber, formatPercent } from '../../format/units';
import { useCall } from '../../hooks/useCall';
import { checklistSummary, type Checklist } from './checklist-summary';
import { observationDiff } from './observation-diff';
import { TokenHeat } from './TokenHeat';
import type { HeatMeasure } from './token-heat';

const roleLabel: Record<Turn['role'], string> = {
  prompt: 'prompt',
  act: 'act',
  rehearse: 'rehearse (imagined)',
  env: 'env (real)',
  memory: 'memory',
};

function RealityCheck({ turn }: { turn: Turn }) {
  if (turn.realText === null) return null;
  const diff = observationDiff(turn.text, turn.realText);
  return (
    <div className="reality-check" data-testid="reality-diff">
      <p className="muted">
        Reality check ({diff.mode === 'json' ? 'structural JSON diff' : 'word diff'})
        {turn.fidelity && (
          <>
            {' '}
            · exact {turn.fidelity.exact ? 'yes' : 'no'} ·{' '}
            {turn.fidelity.jsonF1 !== null ? `JSON F1 ${formatPercent(turn.fidelity.jsonF1)}` : `token F1 ${formatPercent(turn.fidelity.tokenF1)} (not JSON)`} · similarity{' '}
            {formatPercent(turn.fidelity.similarity)}
          </>
        )}
      </p>
      <div className="grid-2">
        <div>
          <p className="role role-rehearse">imagined</p>
          <pre className="turn-text">{diff.parts.filter((p) => p.kind !== 'real').map((p, i) => (p.kind === 'imagined' ? <del key={i}>{p.text}</del> : <span key={i}>{p.text}</span>))}</pre>
        </div>
        <div>
          <p className="role role-env">real</p>
          <pre className="turn-text">{diff.parts.filter((p) => p.kind !== 'imagined').map((p, i) => (p.kind === 'real' ? <ins key={i}>{p.text}</ins> : <span key={i}>{p.text}</span>))}</pre>
        </div>
      </div>
    </div>
  );
}

type RealityCheckOutput = MethodOutput<'trajectories.realityCheck'>;

function FidelitySummary({ summary }: { summary: RealityCheckOutput['summary'] }) {
  return (
    <dl className="facts fidelity-summary" data-testid="reality-summary">
      <dt>Observations compared</dt>
      <dd>{summary.compared}</dd>
      <dt>Exact matches</dt>
      <dd>{formatPercent(summary.exactRate)}</dd>
      <dt>Mean similarity</dt>
      <dd>{formatPercent(summary.meanSimilarity)}</dd>
      <dt>Mean JSON F1</dt>
      <dd title="field F1 over the observations the real environment answered in JSON; an imagined one that is not JSON counts 0">
        {summary.meanJsonF1 === null ? 'no real observation was JSON' : `${formatPercent(summary.meanJsonF1)} over ${summary.jsonCompared}`}
      </dd>
      <dt>Mean token F1</dt>
      <dd title="F1 of the bags of words, over the observations that were not JSON (errors, prose)">
        {summary.meanTokenF1 === null ? 'every real observation was JSON' : `${formatPercent(summary.meanTokenF1)} over ${summary.textCompared}`}
      </dd>
      <dt>Real env calls made</dt>
      <dd>{summary.envCalls}</dd>
    </dl>
  );
}

/**
 * "Reality check" for a rollout with rehearsed observations: the engine replays its actions in
 * the real environment and stores what it really said beside each imagined observation.
 */
function RealityCheckButton({ id, onChecked }: { id: number; onChecked: (result: RealityCheckOutput) => void }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      onChecked(await api.call('trajectories.realityCheck', { id }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="reality-check-action">
      <div className="row">
        <button type="button" className="button" onClick={run} disabled={busy} data-testid="reality-check">
          {busy ? 'Replaying in the real environment…' : 'Reality check'}
        </button>
        <span className="muted">Replays this rollout's actions in the real environment and shows what it really answered beside each imagined observation.</span>
      </div>
      {error ? <ErrorNotice error={error} /> : null}
    </div>
  );
}

/** The checklist's items: ✓ / ✗ for what was checked, ? for what needs a judge. */
function ChecklistDetails({ checklist }: { checklist: Checklist }) {
  return (
    <details data-testid="rollout-checklist">
      <summary>{checklistSummary(checklist)}</summary>
      <ul>
        {checklist.items.map((item) => (
          <li key={item.index} data-unchecked={item.unchecked ? 'true' : undefined}>
            {item.unchecked ? '?' : item.passed ? '✓' : '✗'} {item.description}{' '}
            <span className="muted">{item.unchecked ? '(unchecked: needs an LLM judge; not in the score)' : `(weight ${item.weight}${item.detail ? `; ${item.detail}` : ''})`}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** One rollout as a vertical timeline of turns coloured by role, with its checklist. */
export function RolloutDetail({ id }: { id: number }) {
  const rollout = useCall('trajectories.get', { id });
  const [heat, setHeat] = useState<HeatMeasure | 'off'>('off');
  const [checked, setChecked] = useState<RealityCheckOutput | null>(null);
  if (rollout.error) return <ErrorNotice error={rollout.error} onRetry={rollout.reload} />;
  if (!rollout.data) return <Loading what={`rollout ${id}`} />;
  // A fresh check's answer carries the rollout with its real counterparts stored.
  const r = checked?.rollout.id === id ? checked.rollout : rollout.data;
  const rehearsed = r.turns.some((t) => t.role === 'rehearse');
  const hasTokens = r.turns.some((t) => t.tokenIds && t.tokenIds.length > 0);
  return (
    <section aria-labelledby="rollout-title" data-testid="rollout-detail">
      <div className="card" style={{ marginBottom: 12 }}>
        <h2 id="rollout-title">
          Rollout {r.id} · task <code>{r.taskId}</code>
        </h2>
        <p className="muted">
          {r.mode} · step {r.step ?? '—'} · reward {formatNumber(r.reward)} · {outcomeLabel(r)} · {r.envCalls}{' '}
          env calls ({formatNumber(r.envWallMs)} ms) · {formatNumber(r.tokens)} tokens
          {r.memoryId !== null && (
            <>
              {' '}
              · with <a href={routeHref('memory', { id: String(r.memoryId) })}>memory #{r.memoryId}</a>
            </>
          )}
        </p>
        {rehearsed && <RealityCheckButton id={r.id} onChecked={setChecked} />}
        {checked?.rollout.id === id && <FidelitySummary summary={checked.summary} />}
        {r.checklist && <ChecklistDetails checklist={r.checklist} />}
      </div>
      <p className="legend" aria-label="Role colours">
        {(['prompt', 'act', 'rehearse', 'env', 'memory'] as const).map((role) => (
          <span key={role} className={`role role-${role}`}>
            ■ {roleLabel[role]}
          </span>
        ))}
      </p>
      {hasTokens && (
        <fieldset className="segmented" aria-label="Token view">
          {(['off', 'logprob', 'advantage'] as const).map((m) => (
            <label key={m}>
              <input type="radio" name="heat" value={m} checked={heat === m} onChange={() => setHeat(m)} />
              {m === 'off' ? 'text' : m === 'logprob' ? 'tokens by log-prob' : 'tokens by advantage'}
            </label>
          ))}
        </fieldset>
      )}
      <ol className="timeline">
        {r.turns.map((turn) => (
          <li key={turn.index} className={`turn turn-${turn.role}`} data-role={turn.role}>
            <div className="turn-head">
              <span className={`role role-${turn.role}`}>{roleLabel[turn.role]}</span>
              <span>#{turn.index}</span>
              {turn.tokenIds && <span>{turn.tokenIds.length} tokens</span>}
            </div>
            {heat !== 'off' && turn.tokenIds ? <TokenHeat turn={turn} measure={heat} /> : <pre className="turn-text">{turn.text}</pre>}
            <RealityCheck turn={turn} />
          </li>
        ))}
      </ol>
    </section>
  );
}

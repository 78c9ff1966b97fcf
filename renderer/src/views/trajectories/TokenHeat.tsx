import type { Turn } from '../../../../electron/contract';
import { formatNumber } from '../../format/units';
import { heatColor, maxAbs, type HeatMeasure } from './token-heat';

/** A token's text as a cell shows it: line breaks and tabs as visible marks, so no cell collapses to nothing. */
function visibleToken(text: string): string {
  return text === '' ? '∅' : text.replace(/\n/g, '↵').replace(/\t/g, '⇥');
}

/** One turn's generated tokens as cells tinted by log-prob or advantage; exact values on hover. */
export function TokenHeat({ turn, measure }: { turn: Turn; measure: HeatMeasure }) {
  if (!turn.tokenIds || turn.tokenIds.length === 0) return null;
  const values = measure === 'logprob' ? turn.logprobs : turn.advantages;
  if (!values) return <p className="muted">No {measure === 'logprob' ? 'log-probs' : 'advantages'} stored for this turn.</p>;
  const scale = maxAbs(turn.advantages);
  return (
    <p className="token-heat" aria-label={`${turn.tokenIds.length} tokens coloured by ${measure}`}>
      {turn.tokenIds.map((id, i) => {
        const lp = turn.logprobs?.[i];
        const adv = turn.advantages?.[i];
        const text = turn.tokenTexts?.[i];
        const title = [`token ${i}: ${text !== undefined ? `${JSON.stringify(text)} (id ${id})` : `id ${id}`}`, lp !== undefined ? `log-prob ${formatNumber(lp)} (p ${formatNumber(Math.exp(lp))})` : null, adv !== undefined ? `advantage ${formatNumber(adv)}` : null]
          .filter(Boolean)
          .join(' · ');
        return (
          <span key={i} className="tok" title={title} style={{ background: heatColor(measure, values[i], scale), whiteSpace: 'pre' }}>
            {text !== undefined ? visibleToken(text) : id}
          </span>
        );
      })}
    </p>
  );
}

import { EmptyState } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';

interface PendingViewProps {
  title: string;
  /** What the view will let a person do, from workbench.md. */
  purpose: string[];
  /** Which piece of work brings it, e.g. "the evaluation issue". */
  arrivesWith: string;
  cli?: string;
}

/** A view whose engine part has not landed: says what it will do and when, with no made-up data. */
export function PendingView({ title, purpose, arrivesWith, cli }: PendingViewProps) {
  return (
    <>
      <PageHeader title={title} />
      <EmptyState title={`${title} arrives with ${arrivesWith}`} testId="pending">
        <p>When it lands, this view will let you:</p>
        <ul>
          {purpose.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        {cli && (
          <>
            <p className="muted">The same from a terminal, once available:</p>
            <pre className="cli">
              <code>{cli}</code>
            </pre>
          </>
        )}
      </EmptyState>
    </>
  );
}

export function EvaluateView() {
  return (
    <PendingView
      title="Evaluate"
      arrivesWith="the evaluation issue"
      purpose={[
        'run held-out evaluation in the real environment, with and without test-time rehearsal (parallel or sequential, N rehearsals);',
        'see success rate, checklist score, invalid-action rate, env calls, tokens and world-model fidelity per run;',
        'compare methods side by side on the same budget and seeds, with their reward and fidelity curves.',
      ]}
      cli="envace eval --run RUN_ID --env ENV --split heldout --json"
    />
  );
}

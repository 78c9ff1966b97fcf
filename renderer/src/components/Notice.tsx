import { useEffect, useState, type ReactNode } from 'react';
import { describeError } from '../api/errors';
import { Elapsed } from './Elapsed';

export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { title, detail } = describeError(error);
  return (
    <div className="notice notice-error" role="alert">
      <strong>{title}</strong>
      <p>{detail}</p>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, children, testId }: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <section className="empty-state" data-testid={testId}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** A spinner with what is loading; past two seconds it also shows how long it has taken (a first System probe can take a minute). */
export function Loading({ what }: { what: string }) {
  const [since] = useState(() => Date.now());
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), 2000);
    return () => clearTimeout(timer);
  }, []);
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
      {slow && (
        <span className="muted" data-testid="loading-elapsed">
          {' '}
          <Elapsed since={since} /> so far
        </span>
      )}
    </p>
  );
}

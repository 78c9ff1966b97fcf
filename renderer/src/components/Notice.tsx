import type { ReactNode } from 'react';
import { describeError } from '../api/errors';

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

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

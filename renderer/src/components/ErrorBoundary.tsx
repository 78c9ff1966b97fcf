import { Component, type ReactNode } from 'react';

interface State {
  error: Error | null;
}

/**
 * Keeps a failing view from blanking the whole app: the sidebar stays usable and the error is
 * shown with a way back. `resetKey` (the route) clears the error on navigation.
 */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidUpdate(previous: { resetKey: string }) {
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="notice notice-error" role="alert">
        <strong>This view failed to render</strong>
        <p>{this.state.error.message}</p>
        <p>Other views still work from the sidebar. Reloading the page retries this one.</p>
      </div>
    );
  }
}

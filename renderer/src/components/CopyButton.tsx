import { useEffect, useState } from 'react';

/**
 * Copies text to the clipboard and says so. Where the clipboard is refused (an insecure origin,
 * a denied permission) it says that instead, so the person knows to select the text by hand.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2500);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span className="row">
      <button type="button" className="button button-small" onClick={copy} aria-label={label}>
        Copy
      </button>
      <span role="status" className="muted">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'The clipboard is not available here; select the text and copy it' : ''}
      </span>
    </span>
  );
}

import { useEffect, useState } from 'react';
import { useConnection } from '../api/context';
import { useEvent } from '../hooks/useEvents';

type SocketState = 'connecting' | 'open' | 'closed';

/**
 * Says so when the engine is away: the web socket is reconnecting, or the engine reported
 * that it is restarting after a crash. Requests made meanwhile wait for the connection.
 */
export function ConnectionBanner() {
  const { socket } = useConnection();
  const [socketState, setSocketState] = useState<SocketState>('open');
  const [everOpen, setEverOpen] = useState(false);
  const [engine, setEngine] = useState<{ state: 'ready' | 'restarting' | 'down'; message: string }>({ state: 'ready', message: '' });

  useEffect(() => {
    if (!socket) return;
    return socket.onState((state) => {
      setSocketState(state);
      if (state === 'open') setEverOpen(true);
    });
  }, [socket]);
  useEvent('engine.status', setEngine);

  let message: string | null = null;
  if (socket && socketState !== 'open') {
    message = everOpen ? 'Connection to the engine lost — reconnecting…' : 'Connecting to the engine…';
  } else if (engine.state === 'restarting') {
    message = `The engine is restarting${engine.message ? `: ${engine.message}` : ''}. Running jobs show as interrupted and can be resumed.`;
  } else if (engine.state === 'down') {
    message = `The engine is down${engine.message ? `: ${engine.message}` : ''}.`;
  }
  if (!message) return null;
  return (
    <div className="banner banner-warn" role="status" aria-live="polite" data-testid="connection-banner">
      <span className="spinner" aria-hidden="true" />
      {message}
    </div>
  );
}

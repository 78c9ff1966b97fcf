import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { Connection } from './client';

const ConnectionContext = createContext<Connection | null>(null);
/** Bumped each time the socket comes back after a drop: queries refetch what they may have missed. */
const ReconnectEpochContext = createContext(0);

export function ConnectionProvider({ connection, children }: { connection: Connection; children: ReactNode }) {
  const [epoch, setEpoch] = useState(0);
  useEffect(() => {
    if (!connection.socket) return;
    let opened = false;
    return connection.socket.onState((state) => {
      if (state !== 'open') return;
      if (opened) setEpoch((e) => e + 1);
      opened = true;
    });
  }, [connection]);
  return (
    <ConnectionContext.Provider value={connection}>
      <ReconnectEpochContext.Provider value={epoch}>{children}</ReconnectEpochContext.Provider>
    </ConnectionContext.Provider>
  );
}

/** The connection the app was started with; views call `useApi().call(...)`. */
export function useConnection(): Connection {
  const connection = useContext(ConnectionContext);
  if (!connection) throw new Error('useConnection outside <ConnectionProvider>');
  return connection;
}

export const useApi = () => useConnection().api;
export const useReconnectEpoch = () => useContext(ReconnectEpochContext);

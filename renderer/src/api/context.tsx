import { createContext, useContext, type ReactNode } from 'react';
import type { Connection } from './client';

const ConnectionContext = createContext<Connection | null>(null);

export function ConnectionProvider({ connection, children }: { connection: Connection; children: ReactNode }) {
  return <ConnectionContext.Provider value={connection}>{children}</ConnectionContext.Provider>;
}

/** The connection the app was started with; views call `useApi().call(...)`. */
export function useConnection(): Connection {
  const connection = useContext(ConnectionContext);
  if (!connection) throw new Error('useConnection outside <ConnectionProvider>');
  return connection;
}

export const useApi = () => useConnection().api;

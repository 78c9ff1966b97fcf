import { useCallback, useEffect, useRef, useState } from 'react';
import type { MethodInput, MethodName, MethodOutput } from '../../../electron/contract';
import { useApi, useReconnectEpoch } from '../api/context';

export interface CallState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Fetch again (keeps the current data on screen while loading). */
  reload: () => void;
}

/**
 * Fetch one contract method and keep the latest answer. Responses that arrive after a newer
 * request was made are dropped, so a slow answer never overwrites a fresh one. After a
 * reconnect every query runs again, since events sent while the socket was down are lost.
 */
export function useCall<M extends MethodName>(method: M, input: MethodInput<M> | null): CallState<MethodOutput<M>> {
  const api = useApi();
  const [state, setState] = useState<{ data: MethodOutput<M> | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: input !== null });
  const [nonce, setNonce] = useState(0);
  const latest = useRef(0);
  const epoch = useReconnectEpoch();
  const key = input === null ? null : JSON.stringify(input);

  useEffect(() => {
    if (key === null) return;
    const ticket = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    const call = api.call as (m: MethodName, i: unknown) => Promise<MethodOutput<M>>;
    call(method, JSON.parse(key)).then(
      (data) => ticket === latest.current && setState({ data, error: null, loading: false }),
      (error: unknown) => ticket === latest.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, [api, method, key, nonce, epoch]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { ...state, reload };
}

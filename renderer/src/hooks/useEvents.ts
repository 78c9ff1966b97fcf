import { useEffect, useRef } from 'react';
import type { EventName, EventPayload } from '../../../electron/contract';
import { useApi } from '../api/context';
import { throttle } from './throttle';

/** Run `onEvent` when any of `events` arrives, at most once per `windowMs` (the last call always runs). */
export function useThrottledEvents(events: EventName[], onEvent: () => void, windowMs = 500): void {
  const api = useApi();
  const callback = useRef(onEvent);
  callback.current = onEvent;
  const key = events.join(',');

  useEffect(() => {
    const throttled = throttle(() => callback.current(), windowMs);
    const unsubscribes = key.split(',').map((name) => api.on(name as EventName, throttled));
    return () => {
      throttled.cancel();
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }, [api, key, windowMs]);
}

/** Every payload of one event, unthrottled (for live chart points). */
export function useEvent<E extends EventName>(event: E, onEvent: (payload: EventPayload<E>) => void): void {
  const api = useApi();
  const callback = useRef(onEvent);
  callback.current = onEvent;
  useEffect(() => api.on(event, (payload) => callback.current(payload)), [api, event]);
}

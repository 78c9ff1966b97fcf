import { checkEvent, type EventName, type EventPayload } from '../../contract';

export type EventListener = (event: EventName, payload: unknown) => void;

/** Engine-side event fan-out; every payload is checked against the contract before it leaves. */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    const checked = checkEvent(event, payload);
    for (const listener of [...this.listeners]) {
      try {
        listener(event, checked);
      } catch {
        // A broken subscriber (a closed socket) must not stop the others or the engine.
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Nesting depth of publishes. Handling an event runs at (event depth + 1), so a handler or a pumped guest
 * export that publishes again is one level deeper. AsyncLocalStorage carries the depth across awaits.
 */
const storage = new AsyncLocalStorage<number>();

export function currentPublishDepth(): number {
  return storage.getStore() ?? 0;
}

/** Run fn (and everything it awaits) as the handler of an event published at `eventDepth`. */
export function runHandlingEvent<T>(eventDepth: number, fn: () => T): T {
  return storage.run(eventDepth + 1, fn);
}

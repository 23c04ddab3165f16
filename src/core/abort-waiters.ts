/** Wakes a waiter with the signal's reason. */
export type AbortWaiter = (reason: unknown) => void;

/** The waiters of each signal; the signal has one "abort" listener for all of them. */
const waitingOn = new WeakMap<AbortSignal, Set<AbortWaiter>>();

/**
 * Wake `waiter` when `signal` aborts, through one "abort" listener per signal shared by every waiter on it: an
 * EventTarget listener added and removed per tool call costs more than the rest of the registry's bookkeeping.
 * Pair with removeAbortWaiter once the work is done. Nothing happens for a signal that has already aborted.
 */
export function addAbortWaiter(signal: AbortSignal, waiter: AbortWaiter): void {
  if (signal.aborted) return;
  let waiters = waitingOn.get(signal);
  if (!waiters) {
    const created = new Set<AbortWaiter>();
    waitingOn.set(signal, created);
    const wakeAll = () => {
      waitingOn.delete(signal);
      for (const wake of created) wake(signal.reason);
      created.clear();
    };
    signal.addEventListener("abort", wakeAll, { once: true });
    waiters = created;
  }
  waiters.add(waiter);
}

export function removeAbortWaiter(signal: AbortSignal, waiter: AbortWaiter): void {
  waitingOn.get(signal)?.delete(waiter);
}

import type { WorkerChannel } from "../../../src/plugins/remote/worker-runtime/index.ts";

/** An in-memory WorkerChannel: what the worker sends is recorded; `deliver` plays the host. */
export function memoryChannel() {
  const sent: Array<Record<string, unknown>> = [];
  const handlers = new Set<(m: unknown) => void>();
  const waiters: Array<{
    test: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }> = [];
  const channel: WorkerChannel = {
    send(message) {
      const copy = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
      sent.push(copy);
      for (const w of [...waiters]) {
        if (w.test(copy)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(copy);
        }
      }
    },
    onMessage(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    close() {
      handlers.clear();
    },
  };
  return {
    channel,
    sent,
    deliver(message: unknown) {
      for (const h of [...handlers]) h(message);
    },
    next(test: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
      const found = sent.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

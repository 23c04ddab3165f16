import type { RemoteStatus } from "../types.ts";

/** What a supervisor counts and remembers about its plugin, for status(). */
export class SupervisorStats {
  readonly counters = {
    restarts: 0,
    calls: 0,
    failures: 0,
    timeouts: 0,
    hostCalls: 0,
    malformed: 0,
    oversize: 0,
    callbacks: 0,
  };
  /** Service types started in the current worker (a restart starts them again). */
  readonly servicesStarted = new Set<string>();
  lastError: string | null = null;
  lastEvent: string | null = null;
  readyMs: number | null = null;

  snapshot(
    live: Pick<
      RemoteStatus,
      | "name"
      | "transport"
      | "state"
      | "pid"
      | "inFlight"
      | "memoryBytes"
      | "maxMemoryMb"
      | "logDropped"
      | "hostRefused"
      | "lastHostRefusal"
    >,
  ): RemoteStatus {
    return {
      ...live,
      ...this.counters,
      servicesStarted: [...this.servicesStarted],
      lastError: this.lastError,
      lastEvent: this.lastEvent,
      readyMs: this.readyMs,
    };
  }
}

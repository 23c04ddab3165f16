import { PrxError } from "../core/errors.ts";

/** Counts turns the gateway started, so shutdown can wait for them, and refuses new ones while draining. */
export class TurnTracker {
  private active = 0;
  private idle: Array<() => void> = [];
  /** Running (or queued) cancellable turns by session id: what POST /api/sessions/:id/cancel stops. */
  private readonly cancellable = new Map<string, Set<AbortController>>();
  draining = false;

  /**
   * A signal for one turn of `sessionId` that aborts when `signal` does (the client went away) or when the session's
   * turns are cancelled; `release` forgets it once the turn settled.
   */
  control(sessionId: string, signal: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
    const controller = new AbortController();
    let turns = this.cancellable.get(sessionId);
    if (!turns) this.cancellable.set(sessionId, (turns = new Set()));
    turns.add(controller);
    const release = () => {
      turns.delete(controller);
      if (turns.size === 0 && this.cancellable.get(sessionId) === turns) this.cancellable.delete(sessionId);
    };
    return { signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal, release };
  }

  /** Abort every running or queued turn of a session; how many there were. */
  cancel(sessionId: string): number {
    const turns = this.cancellable.get(sessionId);
    if (!turns) return 0;
    this.cancellable.delete(sessionId);
    const reason = new PrxError("ABORTED", `the turn of session "${sessionId}" was cancelled`);
    for (const controller of turns) controller.abort(reason);
    return turns.size;
  }

  get inFlight(): number {
    return this.active;
  }

  /** Throws 503 while shutting down. */
  assertAdmitting(): void {
    if (this.draining) {
      throw new PrxError("ABORTED", "the gateway is shutting down and accepts no new turns", {
        status: 503,
        hint: "retry once the gateway is back",
      });
    }
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    this.assertAdmitting();
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      if (this.active === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  /** Stop admitting turns; resolves true once none is running, false if `timeoutMs` passed first. */
  drain(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    if (this.active === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

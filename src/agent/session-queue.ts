import { PrxError } from "../core/errors.ts";

/** Turns waiting per session (running one included); past this, a new turn is refused instead of queued forever. */
export const SESSION_QUEUE_MAX = 16;

/** One turn at a time per session: later turns wait in order. Different sessions run concurrently. */
export class SessionQueue {
  private readonly tails = new Map<string, { tail: Promise<unknown>; depth: number }>();
  private unordered = 0;

  async run<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    const entry = this.tails.get(sessionId) ?? { tail: Promise.resolve(), depth: 0 };
    if (entry.depth >= SESSION_QUEUE_MAX) {
      throw new PrxError("RATE_LIMITED", `session ${sessionId} already has ${SESSION_QUEUE_MAX} turns queued`, {
        status: 429,
        hint: "wait for the running turns to finish",
      });
    }
    entry.depth++;
    const previous = entry.tail;
    const current = previous.then(task, task);
    entry.tail = current.catch(() => undefined);
    this.tails.set(sessionId, entry);
    try {
      return await current;
    } finally {
      entry.depth--;
      if (entry.depth === 0 && this.tails.get(sessionId) === entry) this.tails.delete(sessionId);
    }
  }

  /** A turn that touches no stored session (nothing to order it against): runs at once, counted in `active`. */
  async runUnordered<T>(task: () => Promise<T>): Promise<T> {
    this.unordered++;
    try {
      return await task();
    } finally {
      this.unordered--;
    }
  }

  /** Turns running or waiting, over all sessions. */
  get active(): number {
    let n = this.unordered;
    for (const e of this.tails.values()) n += e.depth;
    return n;
  }
}

/** One call waiting for its `worker-rpc-result`. */
export interface CallSlot {
  label: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** performance.now() past which the call times out: `timedOut` runs (it takes the call out of the table). */
  deadline: number;
  timedOut: () => void;
  cleanup: () => void;
}

/**
 * The host's table of calls in flight to one worker, plus calls that were cancelled and wait for the worker's
 * acknowledgement (a worker that never acknowledges is hung). Deadlines share one timer, armed for the earliest
 * and left armed when calls finish (a call costs no timer of its own; the timer finds nothing due and sleeps).
 */
export class CallTable {
  private readonly pending = new Map<number, CallSlot>();
  private readonly cancelling = new Map<number, ReturnType<typeof setTimeout>>();
  private idle: Array<() => void> = [];
  private lastId = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** When the armed timer fires (performance.now()). */
  private timerAt = Infinity;

  get size(): number {
    return this.pending.size;
  }

  /** Cancelled calls whose acknowledgement has not come yet. */
  get unacknowledged(): number {
    return this.cancelling.size;
  }

  nextId(): number {
    return (this.lastId = (this.lastId + 1) >>> 0);
  }

  add(id: number, slot: CallSlot): void {
    this.pending.set(id, slot);
    if (slot.deadline < this.timerAt) this.arm(slot.deadline);
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    // the worker or subprocess keeps the host alive while calls wait for it; this timer alone must not
    this.timer = setTimeout(() => this.due(), Math.max(1, Math.ceil(at - performance.now())));
    this.timer.unref();
  }

  /** Time out every call past its deadline, then arm for the earliest left (none left: the timer sleeps). */
  private due(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const slot of [...this.pending.values()]) {
      if (slot.deadline <= now) slot.timedOut();
      else if (slot.deadline < next) next = slot.deadline;
    }
    if (next !== Infinity && next < this.timerAt) this.arm(next);
  }

  /** Remove a call (answered, timed out, aborted): its abort listener goes with it. */
  take(id: number): CallSlot | undefined {
    const slot = this.pending.get(id);
    if (!slot) return undefined;
    slot.cleanup();
    this.pending.delete(id);
    if (this.pending.size === 0) for (const resolve of this.idle.splice(0)) resolve();
    return slot;
  }

  /** After sending `cancel`: call `onHung` unless the worker acknowledges within `graceMs`. */
  expectAck(id: number, graceMs: number, onHung: () => void): void {
    this.cancelling.set(
      id,
      setTimeout(() => {
        this.cancelling.delete(id);
        onHung();
      }, graceMs),
    );
  }

  /** True when `id` was a cancelled call (its late result or CANCELLED reply is the acknowledgement). */
  ack(id: number): boolean {
    const timer = this.cancelling.get(id);
    if (!timer) return false;
    clearTimeout(timer);
    this.cancelling.delete(id);
    return true;
  }

  /** Take every pending call (the worker is gone) and forget cancellations. */
  drain(): CallSlot[] {
    for (const timer of this.cancelling.values()) clearTimeout(timer);
    this.cancelling.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    return [...this.pending.keys()].map((id) => this.take(id)!);
  }

  whenIdle(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}

/** The text of an actionCallback: `content.text`, else the JSON of the content. */
export function callbackText(content: unknown): string {
  if (typeof content === "string") return content;
  const text = (content as { text?: unknown } | null)?.text;
  return typeof text === "string" ? text : JSON.stringify(content);
}

/** One call waiting for its `worker-rpc-result`. */
export interface CallSlot {
  label: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
  cleanup: () => void;
}

/**
 * The host's table of calls in flight to one worker, plus calls that were cancelled and wait for the worker's
 * acknowledgement (a worker that never acknowledges is hung).
 */
export class CallTable {
  private readonly pending = new Map<number, CallSlot>();
  private readonly cancelling = new Map<number, ReturnType<typeof setTimeout>>();
  private idle: Array<() => void> = [];
  private lastId = 0;

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
  }

  /** Remove a call (answered, timed out, aborted): its timer and abort listener go with it. */
  take(id: number): CallSlot | undefined {
    const slot = this.pending.get(id);
    if (!slot) return undefined;
    clearTimeout(slot.timer);
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

import { PrxError } from "../../core/errors.ts";

/**
 * How many messages one side of a hop (the main thread, a sandbox or plugin Worker, a plugin subprocess) has posted
 * to the other, counted in shared memory: the other side reads it without its event loop, so it can watch for the
 * next message for a moment (`linger`) instead of going to sleep at once. A side counts a message after posting it,
 * so a watcher that sees the count move finds the message queued when it returns to its event loop.
 */
export class Mailbox {
  private readonly count: Int32Array;

  /**
   * `memory`: a SharedArrayBuffer (threads of one process), or a one-element view of memory another process maps
   * too (remote/hop/process-hop.ts).
   */
  constructor(memory: SharedArrayBuffer | Int32Array = new SharedArrayBuffer(4)) {
    this.count = memory instanceof Int32Array ? memory.subarray(0, 1) : new Int32Array(memory, 0, 1);
  }

  /** The SharedArrayBuffer to give a Worker (the count must live in one). */
  get buffer(): SharedArrayBuffer {
    const buffer = this.count.buffer;
    if (buffer instanceof SharedArrayBuffer) return buffer;
    throw new PrxError("INTERNAL", "this mailbox lives in memory mapped from a file, not in a SharedArrayBuffer", {
      hint: "post a Worker a Mailbox made with a SharedArrayBuffer",
    });
  }

  /** The posting side: one more message was posted. */
  posted(): void {
    Atomics.add(this.count, 0, 1);
  }

  /** The count now: what `linger` compares against. */
  seen(): number {
    return Atomics.load(this.count, 0);
  }

  /**
   * The watching side: watch the count for up to `windowUs` (clock `now` in ms, performance.now's). True as soon as a
   * message was posted after `seen` was read; false once the window has passed without one (the last look is at its
   * end).
   */
  linger(seen: number, windowUs: number, now: () => number = () => performance.now()): boolean {
    const end = now() + windowUs / 1000;
    for (;;) {
      if (Atomics.load(this.count, 0) !== seen) return true;
      if (now() >= end) return false;
    }
  }
}

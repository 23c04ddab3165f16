import { PrxError } from "../../../core/errors.ts";
import { SANDBOX_LINGER_US } from "../limits.ts";

/**
 * How long a sandbox Worker watches its mailbox after answering a call, given how many CPUs the process may run on
 * (its affinity, as `os.availableParallelism()` reports it): SANDBOX_LINGER_US, or 0 (no watch) with one CPU. There
 * the main thread can post the next call only once the Worker has left the CPU, so a watch cannot see a call come
 * that a return to the event loop would not find queued; a watch the main thread did not preempt at once holds the
 * only CPU for the whole window while the main thread waits for it (remote plugins' hops follow the same rule,
 * remote/hop/linger.ts).
 */
export function lingerWindowUs(cpus: number): number {
  return cpus > 1 ? SANDBOX_LINGER_US : 0;
}

/**
 * How many messages the main thread has posted to one sandbox Worker, counted in shared memory: the Worker reads it
 * without its event loop, so it can watch for the next call for a moment after answering one (`linger`) instead of
 * going to sleep at once. The main thread counts a message after posting it, so a Worker that sees the count move
 * finds the message queued when it returns to its event loop.
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

  /** The SharedArrayBuffer to post to a Worker (the count must live in one). */
  get buffer(): SharedArrayBuffer {
    const buffer = this.count.buffer;
    if (buffer instanceof SharedArrayBuffer) return buffer;
    throw new PrxError("INTERNAL", "this mailbox lives in memory mapped from a file, not in a SharedArrayBuffer", {
      hint: "post a Worker a Mailbox made with a SharedArrayBuffer",
    });
  }

  /** Main thread: one more message was posted. */
  posted(): void {
    Atomics.add(this.count, 0, 1);
  }

  /** The count now: what `linger` compares against. */
  seen(): number {
    return Atomics.load(this.count, 0);
  }

  /**
   * Worker: watch the count for up to `windowUs` (clock `now` in ms, performance.now's). True as soon as a message
   * was posted after `seen` was read; false once the window has passed without one (the last look is at its end).
   */
  linger(seen: number, windowUs: number, now: () => number = () => performance.now()): boolean {
    const end = now() + windowUs / 1000;
    for (;;) {
      if (Atomics.load(this.count, 0) !== seen) return true;
      if (now() >= end) return false;
    }
  }
}

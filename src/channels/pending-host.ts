import { CHANNEL_MAX_PENDING } from "./limits.ts";
import type { ChannelRunner } from "./runner.ts";
import type { InboundMessage } from "./types.ts";

/** What the pending host hands messages to once it is open: the runner of the channel process. */
export interface OpenedHost {
  runner: Pick<ChannelRunner, "onMessage" | "waitForCapacity">;
}

type State<T> =
  | { kind: "opening"; waiters: Array<{ resolve: (value: T) => void; reject: (error: unknown) => void }> }
  | { kind: "open"; value: T }
  | { kind: "failed"; error: unknown };

/**
 * The agent host of a channel process while it opens in the background, after the platform is connected. The
 * adapter's callbacks go through it: a message that arrives meanwhile waits (at most `maxWaiting` at once: past
 * that, waitForCapacity holds the adapters that read the platform), and once the host is open the waiting messages
 * go to the runner one after another, in the order they arrived, before any later one. If the host fails to open
 * (or the process stops first), every waiting caller gets that error.
 */
export class PendingHost<T extends OpenedHost> {
  private state: State<T> = { kind: "opening", waiters: [] };
  /** Messages that arrived before the host was open and are not handed to the runner yet. */
  private waiting = 0;
  /** The last waiting message's hand-over: the next one goes after it. Never rejects. */
  private chain: Promise<void> = Promise.resolve();
  private capacityWaiters: Array<() => void> = [];

  constructor(private readonly maxWaiting = CHANNEL_MAX_PENDING) {}

  /** Messages waiting for the host (tests, status). */
  get waitingMessages(): number {
    return this.waiting;
  }

  get isOpen(): boolean {
    return this.state.kind === "open";
  }

  /** Resolves with the host once it is open; rejects with why it did not open. */
  when(): Promise<T> {
    const state = this.state;
    if (state.kind === "open") return Promise.resolve(state.value);
    if (state.kind === "failed") return Promise.reject(state.error);
    return new Promise<T>((resolve, reject) => state.waiters.push({ resolve, reject }));
  }

  /** The host is open: the waiting messages go to its runner, in order. */
  open(value: T): void {
    if (this.state.kind !== "opening") return;
    const { waiters } = this.state;
    this.state = { kind: "open", value };
    for (const waiter of waiters) waiter.resolve(value);
  }

  /** The host will not open (a failure, or the process stops first): every waiting caller gets `error`. */
  fail(error: unknown): void {
    if (this.state.kind !== "opening") return;
    const { waiters } = this.state;
    this.state = { kind: "failed", error };
    for (const waiter of waiters) waiter.reject(error);
    this.wakeCapacity();
  }

  /**
   * The adapter's callback (see OnMessage): resolves once the runner has stored the message. Before the host is
   * open, and while earlier messages still wait, the message queues behind them.
   */
  readonly onMessage = (message: InboundMessage): Promise<void> => {
    if (this.state.kind === "open" && this.waiting === 0) return this.state.value.runner.onMessage(message);
    this.waiting += 1;
    const delivered = this.chain.then(() => this.when()).then((host) => host.runner.onMessage(message));
    const done = () => {
      this.waiting -= 1;
      this.wakeCapacity();
    };
    // the outcome (stored, or the error) goes to the caller through `delivered`; the chain only keeps the order
    this.chain = delivered.then(done, done);
    return delivered;
  };

  /** Resolves when another message may be read from the platform: few enough wait here, and the runner has room. */
  async waitForCapacity(): Promise<void> {
    while (this.waiting >= this.maxWaiting && this.state.kind !== "failed") {
      await new Promise<void>((resolve) => this.capacityWaiters.push(resolve));
    }
    if (this.state.kind === "open") await this.state.value.runner.waitForCapacity();
  }

  private wakeCapacity(): void {
    if (this.waiting < this.maxWaiting || this.state.kind === "failed") for (const wake of this.capacityWaiters.splice(0)) wake();
  }
}

import type { BusEvent, Subscription, SubscriptionStats } from "./types.ts";
import type { TopicMatcher } from "./patterns.ts";

type Waiter = (event: BusEvent | null) => void;

/** A subscription's bounded ring queue. Created by EventBus.subscribe. */
export class BusSubscription implements Subscription {
  private readonly ring: (BusEvent | undefined)[] = [];
  private head = 0;
  private size = 0;
  private waiters: Waiter[] = [];
  private delivered = 0;
  private droppedCount = 0;
  private isClosed = false;

  constructor(
    readonly id: number,
    readonly name: string,
    readonly pattern: string,
    readonly matches: TopicMatcher,
    private readonly capacity: number,
    private readonly onClose: (sub: BusSubscription) => void,
  ) {}

  get closed(): boolean {
    return this.isClosed;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  get queued(): number {
    return this.size;
  }

  /** Called by the bus. False when the queue is full and the event was dropped. Never waits. */
  offer(event: BusEvent): boolean {
    if (this.isClosed) return true;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.delivered++;
      waiter(event);
      return true;
    }
    if (this.size >= this.capacity) {
      this.droppedCount++;
      return false;
    }
    this.ring[(this.head + this.size) % this.capacity] = event;
    this.size++;
    return true;
  }

  tryNext(): BusEvent | undefined {
    if (this.size === 0) return undefined;
    const event = this.ring[this.head];
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.size--;
    this.delivered++;
    return event;
  }

  next(): Promise<BusEvent | null> {
    const queued = this.tryNext();
    if (queued) return Promise.resolve(queued);
    if (this.isClosed) return Promise.resolve(null);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<BusEvent> {
    for (;;) {
      const event = await this.next();
      if (event === null) return;
      yield event;
    }
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.ring.length = 0;
    this.size = 0;
    this.head = 0;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter(null);
    this.onClose(this);
  }

  stats(): SubscriptionStats {
    return {
      id: this.id,
      name: this.name,
      pattern: this.pattern,
      queued: this.size,
      delivered: this.delivered,
      dropped: this.droppedCount,
      closed: this.isClosed,
    };
  }
}

import type { EventPublisher } from "../../core/events.ts";

/** Where a bus forwards what it publishes when replicas share events (src/plugins/fabric). */
export interface RemoteBus {
  /** True when a subscriber on another replica matches `topic`. */
  wants(topic: string): boolean;
  /** Send to the other replicas; never waits (past its bound it drops, with a warning). */
  forward(topic: string, payloadJson: string, depth: number): void;
  /** The bus's subscriptions or listeners changed (so may its patterns): the other replicas are to be told. */
  patternsChanged(): void;
}

/** One published event as a subscriber sees it. */
export interface BusEvent {
  readonly topic: string;
  /** The value given to publish. Shared by every subscriber: treat as read-only (payloadJson is the safe copy). */
  readonly payload: unknown;
  /** The payload serialized once at publish time (what guests receive). */
  readonly payloadJson: string;
  /** Nesting depth at which it was published (0 = top level). */
  readonly depth: number;
  /** Bus-wide sequence number, increasing. */
  readonly seq: number;
}

export interface SubscribeOptions {
  /** Shown in stats and warnings, e.g. "<plugin>/<capability>". */
  name?: string;
  /** Queue size, 1..EVENT_QUEUE_CAPACITY (default EVENT_QUEUE_CAPACITY). */
  capacity?: number;
}

export interface SubscriptionStats {
  id: number;
  name: string;
  pattern: string;
  queued: number;
  delivered: number;
  dropped: number;
  closed: boolean;
}

/** A bounded queue of matching events, consumed with next() or for-await. */
export interface Subscription extends AsyncIterable<BusEvent> {
  readonly id: number;
  readonly name: string;
  /** The pattern, or the patterns joined with ",". */
  readonly pattern: string;
  readonly closed: boolean;
  /** Resolves with the next event, or null once the subscription is closed. */
  next(): Promise<BusEvent | null>;
  /** The next queued event without waiting, or undefined when the queue is empty. */
  tryNext(): BusEvent | undefined;
  /** Stop receiving, drop what is queued, wake waiting consumers with null, unregister. Idempotent. */
  close(): void;
  stats(): SubscriptionStats;
}

/** A synchronous in-process listener. Called inside publish: keep it short; errors are isolated and counted. */
export type EventHandler = (event: BusEvent) => void | Promise<void>;

/** Receives (topic, payload parsed from its JSON) from a pumped subscription. */
export type PayloadHandler = (topic: string, payload: unknown) => void | Promise<void>;

export interface ListenerStats {
  id: number;
  name: string;
  pattern: string;
  calls: number;
  errors: number;
}

export interface Listener {
  readonly id: number;
  off(): void;
  stats(): ListenerStats;
}

export interface EventBusStats {
  /** Publishes accepted. */
  published: number;
  /** Publishes refused (bad topic, payload too large or not JSON, depth exceeded). */
  rejected: number;
  /** Events handed to subscription consumers plus listener calls. */
  delivered: number;
  /** Events dropped because a subscriber's queue was full. */
  dropped: number;
  subscriptions: SubscriptionStats[];
  listeners: ListenerStats[];
}

export interface EventBusApi extends EventPublisher {
  /** Throws PrxError (LIMIT_EXCEEDED / BAD_REQUEST / PAYLOAD_TOO_LARGE) for input past the limits. */
  publish(topic: string, payload: unknown): void;
  /** Several patterns make one subscription: an event matching any of them is queued once. */
  subscribe(patterns: string | readonly string[], options?: SubscribeOptions): Subscription;
  /** Callback form: a bounded subscription drained by a pump calling handler; returns the unsubscribe function. */
  subscribe(patterns: string | readonly string[], handler: PayloadHandler): () => void;
  on(patterns: string | readonly string[], handler: EventHandler, options?: { name?: string }): Listener;
  stats(): EventBusStats;
  close(): void;
}

import { PrxError } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";
import { currentPublishDepth, runHandlingEvent } from "./depth.ts";
import {
  EVENT_MAX_PAYLOAD_BYTES,
  EVENT_MAX_PUBLISH_DEPTH,
  EVENT_MAX_SUBSCRIPTIONS,
  EVENT_QUEUE_CAPACITY,
  EVENT_ROUTE_CACHE_SIZE,
  EVENT_TOPIC_MAX_BYTES,
} from "./limits.ts";
import { compilePattern, compilePatterns, validateTopic } from "./patterns.ts";
import type { TopicMatcher } from "./patterns.ts";
import { startPump } from "./pump.ts";
import { BusSubscription } from "./subscription.ts";
import type {
  BusEvent,
  RemoteBus,
  EventBusApi,
  EventBusStats,
  EventHandler,
  Listener,
  ListenerStats,
  PayloadHandler,
  SubscribeOptions,
  Subscription,
} from "./types.ts";
import { RateLimitedWarner } from "./warn.ts";

interface ListenerEntry {
  id: number;
  name: string;
  pattern: string;
  matches: TopicMatcher;
  handler: EventHandler;
  calls: number;
  errors: number;
}

interface Route {
  subs: BusSubscription[];
  listeners: ListenerEntry[];
}

/**
 * The runtime's event bus, one per PluginRuntime and stable across generations. publish never waits: each
 * matching subscription gets the event in its bounded queue (or drops it with a rate-limited warning when full),
 * and synchronous listeners are called in place with their errors isolated.
 */
export class EventBus implements EventBusApi {
  private readonly subs = new Map<number, BusSubscription>();
  private readonly listeners = new Map<number, ListenerEntry>();
  private readonly routes = new Map<string, Route>();
  private readonly warner: RateLimitedWarner;
  private readonly logger: Logger;
  private nextId = 1;
  private seq = 0;
  private published = 0;
  private rejected = 0;
  private listenerCalls = 0;
  private closedDropped = 0;
  private isClosed = false;
  private remote: RemoteBus | null = null;

  constructor(options: { logger?: Logger } = {}) {
    this.logger = options.logger ?? createLogger("events");
    this.warner = new RateLimitedWarner(this.logger);
  }

  publish(topic: string, payload: unknown): void {
    const depth = currentPublishDepth();
    if (depth > EVENT_MAX_PUBLISH_DEPTH) {
      this.rejected++;
      throw new PrxError(
        "LIMIT_EXCEEDED",
        `publish of "${topic}" is nested ${depth} levels deep; at most ${EVENT_MAX_PUBLISH_DEPTH} are allowed`,
        { hint: "an event handler is republishing in a loop; break the cycle", details: { depth } },
      );
    }
    let json: string | undefined;
    try {
      validateTopic(topic);
      json = JSON.stringify(payload);
    } catch (error) {
      this.rejected++;
      if (error instanceof PrxError) throw error;
      throw new PrxError(
        "BAD_REQUEST",
        `payload of event "${topic}" is not JSON-serializable: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    if (json === undefined) json = "null";
    if (json.length > EVENT_MAX_PAYLOAD_BYTES / 3 && Buffer.byteLength(json, "utf8") > EVENT_MAX_PAYLOAD_BYTES) {
      this.rejected++;
      throw new PrxError(
        "PAYLOAD_TOO_LARGE",
        `payload of event "${topic}" is ${Buffer.byteLength(json, "utf8")} bytes of JSON; ` +
          `the limit is ${EVENT_MAX_PAYLOAD_BYTES}`,
        { hint: "publish a reference (an id or a path) instead of the data itself", status: 413 },
      );
    }
    this.published++;
    // Other replicas get it too when one of them subscribes to it (the remote link never blocks: it drops past its bound).
    if (this.remote?.wants(topic)) this.remote.forward(topic, json, depth);
    this.deliver(topic, payload, json, depth);
  }

  /**
   * An event another replica published (the remote link calls it): delivered to this bus's subscribers and
   * listeners as a local one would be, never forwarded again.
   */
  deliverRemote(topic: string, payloadJson: string, depth: number): void {
    if (this.isClosed) return;
    this.deliver(topic, JSON.parse(payloadJson) as unknown, payloadJson, depth);
  }

  /** Forward publishes to other replicas (one link per bus; null detaches). */
  attachRemote(remote: RemoteBus | null): void {
    this.remote = remote;
  }

  /** The patterns this bus's subscriptions and listeners match (what other replicas must forward here). */
  patterns(): string[] {
    const all = new Set<string>();
    for (const sub of this.subs.values()) for (const p of sub.pattern.split(",")) all.add(p);
    for (const listener of this.listeners.values()) for (const p of listener.pattern.split(",")) all.add(p);
    return [...all];
  }

  private deliver(topic: string, payload: unknown, json: string, depth: number): void {
    const route = this.route(topic);
    if (route.subs.length === 0 && route.listeners.length === 0) return;
    const event: BusEvent = { topic, payload, payloadJson: json, depth, seq: ++this.seq };
    for (const sub of route.subs) {
      if (!sub.offer(event)) {
        this.warner.warn(`sub:${sub.id}`, "event dropped: subscriber queue full", {
          subscriber: sub.name,
          pattern: sub.pattern,
          topic,
          dropped: sub.dropped,
        });
      }
    }
    for (const listener of route.listeners) this.callListener(listener, event);
  }

  /** Whether any subscription or listener matches `topic` (an invalid topic is "wanted": publish reports it). */
  wants(topic: string): boolean {
    if (topic.length === 0 || topic.length > EVENT_TOPIC_MAX_BYTES / 3) return true;
    const route = this.route(topic);
    return route.subs.length > 0 || route.listeners.length > 0 || this.remote?.wants(topic) === true;
  }

  subscribe(patterns: string | readonly string[], options?: SubscribeOptions): Subscription;
  /**
   * Callback form (the `EventSubscriber` shape the WASM sandbox probes for): a bounded subscription consumed by a
   * pump that calls `handler(topic, payload)` (payload parsed from its JSON, awaited when it returns a promise).
   * Returns the function that closes and unregisters it.
   */
  subscribe(patterns: string | readonly string[], handler: PayloadHandler): () => void;
  subscribe(
    patterns: string | readonly string[],
    second?: SubscribeOptions | PayloadHandler,
  ): Subscription | (() => void) {
    if (typeof second !== "function") return this.openSubscription(patterns, second ?? {});
    const sub = this.openSubscription(patterns, {});
    startPump(sub, async (topic, payloadJson) => second(topic, JSON.parse(payloadJson)), { logger: this.logger });
    return () => sub.close();
  }

  private openSubscription(patterns: string | readonly string[], options: SubscribeOptions): Subscription {
    const { pattern, matches } = compile(patterns);
    const capacity = options.capacity ?? EVENT_QUEUE_CAPACITY;
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > EVENT_QUEUE_CAPACITY) {
      throw new PrxError("LIMIT_EXCEEDED", `subscription capacity ${capacity} must be 1..${EVENT_QUEUE_CAPACITY}`);
    }
    this.admit(pattern);
    const id = this.nextId++;
    const sub = new BusSubscription(id, options.name ?? `sub-${id}`, pattern, matches, capacity, (closed) => {
      if (this.subs.delete(closed.id)) {
        this.closedDropped += closed.dropped;
        this.warner.forget(`sub:${closed.id}`);
        this.subscribersChanged();
      }
    });
    this.subs.set(id, sub);
    this.subscribersChanged();
    return sub;
  }

  on(patterns: string | readonly string[], handler: EventHandler, options: { name?: string } = {}): Listener {
    const { pattern, matches } = compile(patterns);
    this.admit(pattern);
    const id = this.nextId++;
    const entry: ListenerEntry = {
      id,
      name: options.name ?? `listener-${id}`,
      pattern,
      matches,
      handler,
      calls: 0,
      errors: 0,
    };
    this.listeners.set(id, entry);
    this.subscribersChanged();
    return {
      id,
      off: () => {
        if (this.listeners.delete(id)) {
          this.warner.forget(`listener:${id}`);
          this.subscribersChanged();
        }
      },
      stats: () => listenerStats(entry),
    };
  }

  stats(): EventBusStats {
    const subscriptions = [...this.subs.values()].map((s) => s.stats());
    const listeners = [...this.listeners.values()].map(listenerStats);
    return {
      published: this.published,
      rejected: this.rejected,
      delivered: subscriptions.reduce((n, s) => n + s.delivered, 0) + this.listenerCalls,
      dropped: subscriptions.reduce((n, s) => n + s.dropped, 0) + this.closedDropped,
      subscriptions,
      listeners,
    };
  }

  /** Close every subscription and remove every listener (runtime shutdown). Later subscribes fail. */
  close(): void {
    this.isClosed = true;
    for (const sub of [...this.subs.values()]) sub.close();
    this.listeners.clear();
    this.routes.clear();
  }

  private admit(pattern: string): void {
    if (this.isClosed) {
      throw new PrxError("PLUGIN_UNSUPPORTED", `cannot subscribe to "${pattern}": the event bus is closed`);
    }
    if (this.subs.size + this.listeners.size >= EVENT_MAX_SUBSCRIPTIONS) {
      throw new PrxError(
        "LIMIT_EXCEEDED",
        `cannot subscribe to "${pattern}": the bus already has ${EVENT_MAX_SUBSCRIPTIONS} subscriptions`,
        { hint: "close unused subscriptions; a plugin generation closes its pumps when released" },
      );
    }
  }

  private subscribersChanged(): void {
    this.routes.clear();
    this.remote?.patternsChanged();
  }

  private route(topic: string): Route {
    const cached = this.routes.get(topic);
    if (cached) return cached;
    const route: Route = { subs: [], listeners: [] };
    for (const sub of this.subs.values()) if (sub.matches(topic)) route.subs.push(sub);
    for (const listener of this.listeners.values()) if (listener.matches(topic)) route.listeners.push(listener);
    if (this.routes.size >= EVENT_ROUTE_CACHE_SIZE) this.routes.clear();
    this.routes.set(topic, route);
    return route;
  }

  private callListener(listener: ListenerEntry, event: BusEvent): void {
    listener.calls++;
    this.listenerCalls++;
    try {
      const result = runHandlingEvent(event.depth, () => listener.handler(event));
      if (result instanceof Promise) result.catch((error: unknown) => this.listenerFailed(listener, event, error));
    } catch (error) {
      this.listenerFailed(listener, event, error);
    }
  }

  private listenerFailed(listener: ListenerEntry, event: BusEvent, error: unknown): void {
    listener.errors++;
    this.warner.warn(`listener:${listener.id}`, "event listener failed", {
      listener: listener.name,
      topic: event.topic,
      error: error instanceof Error ? error.message : String(error),
      errors: listener.errors,
    });
  }
}

function listenerStats(entry: ListenerEntry): ListenerStats {
  return { id: entry.id, name: entry.name, pattern: entry.pattern, calls: entry.calls, errors: entry.errors };
}

/** One pattern, or several (an event matching any of them is delivered once). */
function compile(patterns: string | readonly string[]): { pattern: string; matches: TopicMatcher } {
  if (typeof patterns === "string") return { pattern: patterns, matches: compilePattern(patterns) };
  if (patterns.length === 0) {
    throw new PrxError("BAD_REQUEST", "subscription needs at least one event pattern", {
      hint: 'use "*" for every event',
    });
  }
  return { pattern: patterns.join(","), matches: compilePatterns(patterns) };
}

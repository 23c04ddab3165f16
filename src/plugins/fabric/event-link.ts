import type { Logger } from "../../core/logger.ts";
import type { EventBus } from "../events/bus.ts";
import { EVENT_ROUTE_CACHE_SIZE } from "../events/limits.ts";
import { compilePatterns, type TopicMatcher } from "../events/patterns.ts";
import type { RemoteBus } from "../events/types.ts";
import { RateLimitedWarner } from "../events/warn.ts";
import { FabricEventSchema } from "./messages.ts";
import type { RedisFabric } from "./redis-fabric.ts";

export const EVENTS_CHANNEL = "events";

/**
 * The bus of one replica joined to the others': a publish is forwarded when another replica subscribes to its
 * topic (their announced patterns), and events from the others are delivered here. Each event carries its origin,
 * so a replica never delivers its own event twice (once locally, once back from Redis).
 */
export class EventLink implements RemoteBus {
  private matcher: TopicMatcher = () => false;
  private readonly cache = new Map<string, boolean>();
  private readonly warner: RateLimitedWarner;
  received = 0;
  forwarded = 0;

  constructor(
    private readonly fabric: RedisFabric,
    private readonly bus: EventBus,
    logger: Logger,
  ) {
    this.warner = new RateLimitedWarner(logger);
    fabric.onPeers(() => this.recompile());
  }

  async open(): Promise<void> {
    await this.fabric.listen(EVENTS_CHANNEL, (message) => this.receive(message));
    this.recompile();
    this.bus.attachRemote(this);
    // subscriptions made between the fabric's join and this attach
    this.fabric.patternsChanged();
  }

  patternsChanged(): void {
    this.fabric.patternsChanged();
  }

  wants(topic: string): boolean {
    const cached = this.cache.get(topic);
    if (cached !== undefined) return cached;
    const wanted = this.matcher(topic);
    if (this.cache.size >= EVENT_ROUTE_CACHE_SIZE) this.cache.clear();
    this.cache.set(topic, wanted);
    return wanted;
  }

  forward(topic: string, payloadJson: string, depth: number): void {
    const message = JSON.stringify({ o: this.fabric.replica, t: topic, p: payloadJson, d: depth });
    if (this.fabric.publish(EVENTS_CHANNEL, message)) this.forwarded++;
  }

  private receive(message: string): void {
    const parsed = FabricEventSchema.safeParse(JSON.parse(message));
    if (!parsed.success) {
      this.warner.warn("malformed", "malformed fabric event dropped", { error: parsed.error.issues[0]?.message });
      return;
    }
    const event = parsed.data;
    if (event.o === this.fabric.replica) return;
    this.received++;
    this.bus.deliverRemote(event.t, event.p, event.d);
  }

  private recompile(): void {
    const patterns = [...new Set([...this.fabric.peers.values()].flat())];
    this.matcher = patterns.length === 0 ? () => false : compilePatterns(patterns);
    this.cache.clear();
  }

  close(): void {
    this.bus.attachRemote(null);
  }
}

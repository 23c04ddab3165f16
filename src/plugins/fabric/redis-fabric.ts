import { hostname } from "node:os";
import { errorMessage } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/logger.ts";
import { SupervisedRedis, type RedisLinkStatus } from "../../storage/redis/index.ts";
import { RateLimitedWarner } from "../events/warn.ts";
import {
  FABRIC_MAX_IN_FLIGHT,
  FABRIC_MESSAGE_MAX_BYTES,
  FABRIC_PUBLISH_TIMEOUT_MS,
  FABRIC_REFRESH_MS,
  FABRIC_REPLICA_TTL_MS,
} from "./limits.ts";
import { ReplicaAnnouncementSchema } from "./messages.ts";

export interface FabricOptions {
  url: string;
  /** Prefix of every key and channel: replicas of one deployment share it. */
  prefix: string;
  logger: Logger;
  /** The patterns this replica's bus subscribes to, read at every announcement. */
  patterns: () => string[];
}

/**
 * One replica's connection to the others through Redis: a publishing client, a subscribing client (Redis puts a
 * subscribed connection in a mode of its own), and a registry hash where every replica announces itself and its
 * subscription patterns each FABRIC_REFRESH_MS. Publishes never wait: while Redis is away, or past
 * FABRIC_MAX_IN_FLIGHT unacknowledged ones (each failing after FABRIC_PUBLISH_TIMEOUT_MS), messages are dropped,
 * counted, with a rate-limited warning. Both connections are made again by themselves after an outage.
 */
export class RedisFabric {
  readonly replica = `${hostname()}:${process.pid}:${newId("r").slice(2, 10)}`;
  private readonly pub: SupervisedRedis;
  private readonly sub: SupervisedRedis;
  private timer: ReturnType<typeof setInterval> | null = null;
  private inFlight = 0;
  private peerTable = new Map<string, string[]>();
  private readonly warner: RateLimitedWarner;
  private readonly peerListeners = new Set<() => void>();
  /** Messages dropped: Redis away, too slow (FABRIC_PUBLISH_TIMEOUT_MS) or FABRIC_MAX_IN_FLIGHT behind. */
  dropped = 0;
  private closed = false;

  constructor(private readonly options: FabricOptions) {
    const link = { url: options.url, logger: options.logger, commandTimeoutMs: FABRIC_PUBLISH_TIMEOUT_MS };
    this.pub = new SupervisedRedis({ ...link, purpose: 'events between replicas ([bus] backend = "redis")' });
    this.sub = new SupervisedRedis({ ...link, purpose: 'subscriptions to the other replicas ([bus] backend = "redis")' });
    this.warner = new RateLimitedWarner(options.logger);
  }

  key(name: string): string {
    return `${this.options.prefix}:${name}`;
  }

  /** Connect both clients (or keep trying), announce this replica and start the refresh timer. */
  async open(): Promise<void> {
    // The gateway checked Redis at its start; a runtime joining later while Redis is away joins when it returns.
    await Promise.all([this.pub.openOrRetry(), this.sub.openOrRetry()]);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), FABRIC_REFRESH_MS);
    this.timer.unref?.();
  }

  /** Subscribe `handler` to a channel (under the prefix). Oversized messages are dropped with a warning. */
  async listen(channel: string, handler: (message: string) => void): Promise<void> {
    await this.sub.subscribe(this.key(channel), (message: string) => {
      if (message.length > FABRIC_MESSAGE_MAX_BYTES) {
        this.warner.warn(`big:${channel}`, "fabric message over the size limit dropped", { channel, bytes: message.length });
        return;
      }
      try {
        handler(message);
      } catch (error) {
        this.warner.warn(`bad:${channel}`, "fabric message not handled", { channel, error: errorMessage(error) });
      }
    });
  }

  /** Publish without waiting; false when dropped (closed, Redis away, or too many unacknowledged). */
  publish(channel: string, message: string): boolean {
    if (this.closed || !this.pub.connected || this.inFlight >= FABRIC_MAX_IN_FLIGHT) {
      this.dropped++;
      const why = this.pub.connected ? "Redis is not keeping up" : "Redis is unreachable";
      this.warner.warn("drop", `fabric publish dropped: ${why}`, { channel, dropped: this.dropped });
      return false;
    }
    this.inFlight++;
    this.pub
      .send("PUBLISH", [this.key(channel), message])
      .catch((error: unknown) => {
        this.dropped++;
        this.warner.warn("fail", "fabric publish failed", { channel, error: errorMessage(error), dropped: this.dropped });
      })
      .finally(() => void this.inFlight--);
    return true;
  }

  /** The publishing connection's state (the subscribing one follows it). */
  get link(): RedisLinkStatus {
    return this.pub.snapshot();
  }

  /** Other live replicas and their subscription patterns (as of the last refresh). */
  get peers(): ReadonlyMap<string, string[]> {
    return this.peerTable;
  }

  /** Called after every refresh that changed the peers or their patterns. */
  onPeers(listener: () => void): () => void {
    this.peerListeners.add(listener);
    return () => this.peerListeners.delete(listener);
  }

  /** Announce this replica and read the others'. Exposed so a new subscription is announced at once. */
  async refresh(): Promise<void> {
    if (this.closed) return;
    const now = Date.now();
    const registry = this.key("replicas");
    try {
      const me = JSON.stringify({ at: now, patterns: this.options.patterns() });
      // both sent at once (one round trip; Redis answers in order, so the read holds this announcement)
      const [, flat] = (await Promise.all([this.pub.send("HSET", [registry, this.replica, me]), this.pub.send("HGETALL", [registry])])) as [
        unknown,
        Record<string, string> | string[],
      ];
      const entries = Array.isArray(flat) ? pairs(flat) : Object.entries(flat);
      const next = new Map<string, string[]>();
      const stale: string[] = [];
      for (const [id, raw] of entries) {
        if (id === this.replica) continue;
        const parsed = ReplicaAnnouncementSchema.safeParse(JSON.parse(raw));
        if (!parsed.success || now - parsed.data.at > FABRIC_REPLICA_TTL_MS) {
          if (!parsed.success || now - (parsed.data.at ?? 0) > 10 * FABRIC_REPLICA_TTL_MS) stale.push(id);
          continue;
        }
        next.set(id, parsed.data.patterns);
      }
      if (stale.length > 0) await this.pub.send("HDEL", [registry, ...stale]);
      const changed = JSON.stringify([...next].sort()) !== JSON.stringify([...this.peerTable].sort());
      this.peerTable = next;
      if (changed) {
        const patterns = [...new Set([...next.values()].flat())].sort();
        this.options.logger.info("replica peers changed", { replica: this.replica, peers: next.size, patterns });
        for (const listener of this.peerListeners) listener();
      }
    } catch (error) {
      this.warner.warn("refresh", "fabric refresh failed; peers are as last read", { error: errorMessage(error) });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    try {
      await this.pub.send("HDEL", [this.key("replicas"), this.replica]);
    } catch (error) {
      this.options.logger.warn("replica not removed from the fabric registry; it expires by itself", { error: errorMessage(error) });
    }
    this.sub.close();
    this.pub.close();
  }
}

function pairs(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

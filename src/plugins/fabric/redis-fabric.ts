import { hostname } from "node:os";
import { errorMessage } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/logger.ts";
import { BACKGROUND_TIMERS, type Cancel, type Timers } from "../../core/timers.ts";
import { rerunOnRequest } from "../../core/rerun.ts";
import { SupervisedRedis, type RedisLinkStatus } from "../../storage/redis/index.ts";
import { RateLimitedWarner } from "../events/warn.ts";
import {
  FABRIC_MAX_IN_FLIGHT,
  FABRIC_MESSAGE_MAX_BYTES,
  FABRIC_PUBLISH_TIMEOUT_MS,
  FABRIC_REFRESH_MS,
  FABRIC_REPLICA_TTL_MS,
} from "./limits.ts";
import { PeerNoticeSchema, type PeerNotice, type ReplicaAnnouncement } from "./messages.ts";
import { isAnnouncementLive, readRegistry, type RegistryReply } from "./registry.ts";

/** The channel (under the prefix) where replicas tell each other that they joined, changed patterns or left. */
export const PEERS_CHANNEL = "peers";

export interface FabricOptions {
  url: string;
  /** Prefix of every key and channel: replicas of one deployment share it. */
  prefix: string;
  logger: Logger;
  /** The patterns this replica's bus subscribes to, read at every announcement. */
  patterns: () => string[];
  /**
   * The clock (Date.now's: announcements are compared across machines) and the refresh interval; default
   * BACKGROUND_TIMERS: the interval does not keep the process alive (tests move their own by hand).
   */
  clock?: Pick<Timers, "dateNow" | "every">;
}

/**
 * One replica's connection to the others through Redis: a publishing client, a subscribing client (Redis puts a
 * subscribed connection in a mode of its own), and a registry hash of every replica and its subscription patterns.
 * A replica learns of the others by notice: it reads the registry once when it joins, and each replica tells the
 * peers channel when it joins, when its patterns change (patternsChanged) and when it leaves. Every
 * FABRIC_REFRESH_MS it rewrites its entry and reads the registry again, which ages out a replica that ended without
 * a word (FABRIC_REPLICA_TTL_MS) and heals a notice missed during an outage. Publishes never wait: while Redis is
 * away, or past FABRIC_MAX_IN_FLIGHT unacknowledged ones (each failing after FABRIC_PUBLISH_TIMEOUT_MS), messages
 * are dropped, counted, with a rate-limited warning. Both connections are made again by themselves after an outage,
 * and then the registry is read again.
 */
export class RedisFabric {
  readonly replica = `${hostname()}:${process.pid}:${newId("r").slice(2, 10)}`;
  private readonly pub: SupervisedRedis;
  private readonly sub: SupervisedRedis;
  private readonly clock: Pick<Timers, "dateNow" | "every">;
  private cancelRefresh: Cancel | null = null;
  private inFlight = 0;
  /** Live peers as last heard (registry or notice). */
  private heard = new Map<string, ReplicaAnnouncement>();
  private peerTable: ReadonlyMap<string, string[]> = new Map();
  /** Replicas that said they left (local time): a registry read answered before their leave does not bring them back. */
  private readonly gone = new Map<string, number>();
  /** The patterns last told to the others (sorted, joined); null until told once. */
  private told: string | null = null;
  private opened = false;
  private readonly warner: RateLimitedWarner;
  private readonly peerListeners = new Set<() => void>();
  private readonly announcing = rerunOnRequest(() => this.announce());
  /** Messages dropped: Redis away, too slow (FABRIC_PUBLISH_TIMEOUT_MS) or FABRIC_MAX_IN_FLIGHT behind. */
  dropped = 0;
  private closed = false;

  constructor(private readonly options: FabricOptions) {
    const link = {
      url: options.url,
      logger: options.logger,
      commandTimeoutMs: FABRIC_PUBLISH_TIMEOUT_MS,
      // notices sent while a connection was away are lost: the registry tells what they said
      onRestored: () => void this.refresh(),
    };
    this.pub = new SupervisedRedis({ ...link, purpose: 'events between replicas ([bus] backend = "redis")' });
    this.sub = new SupervisedRedis({ ...link, purpose: 'subscriptions to the other replicas ([bus] backend = "redis")' });
    this.clock = options.clock ?? BACKGROUND_TIMERS;
    this.warner = new RateLimitedWarner(options.logger);
  }

  key(name: string): string {
    return `${this.options.prefix}:${name}`;
  }

  /** Connect both clients (or keep trying), listen for notices, join (registry read, notice) and start the refresh. */
  async open(): Promise<void> {
    // The gateway checked Redis at its start; a runtime joining later while Redis is away joins when it returns.
    await Promise.all([this.pub.openOrRetry(), this.sub.openOrRetry()]);
    // listening before the registry is read: a replica joining meanwhile is in the read or told after it
    await this.listen(PEERS_CHANNEL, (message) => this.onNotice(message));
    this.opened = true;
    await this.refresh();
    this.cancelRefresh = this.clock.every(() => this.refresh(), FABRIC_REFRESH_MS);
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

  /** Other live replicas and their subscription patterns. */
  get peers(): ReadonlyMap<string, string[]> {
    return this.peerTable;
  }

  /** Called after every change of the peers or their patterns. */
  onPeers(listener: () => void): () => void {
    this.peerListeners.add(listener);
    return () => this.peerListeners.delete(listener);
  }

  /**
   * This replica's patterns may have changed: the others are told (entry and notice) when they did. Changes in one
   * synchronous stretch (a plugin subscribing to several topics) are told once.
   */
  patternsChanged(): void {
    if (this.closed) return;
    queueMicrotask(() => void this.announcing());
  }

  /** Rewrite this replica's entry and read the others'; tell the peers channel when its patterns changed. */
  async refresh(): Promise<void> {
    if (this.closed || !this.opened) return;
    const now = this.clock.dateNow();
    const registry = this.key("replicas");
    const patterns = this.ownPatterns();
    const told = patterns.join("\n");
    try {
      const entry: ReplicaAnnouncement = { at: now, patterns };
      // sent at once, answered in order: the read holds this entry, and the notice follows it
      const sending: Array<Promise<unknown>> = [this.pub.send("HSET", [registry, this.replica, JSON.stringify(entry)]), this.pub.send("HGETALL", [registry])];
      if (told !== this.told) sending.push(this.pub.send("PUBLISH", [this.key(PEERS_CHANNEL), this.notice(entry)]));
      const [, reply] = (await Promise.all(sending)) as [unknown, RegistryReply];
      this.told = told;
      const { entries: read, stale } = readRegistry(reply, now);
      read.delete(this.replica);
      if (stale.length > 0) {
        this.options.logger.info("stale replica registry entries removed", { replicas: stale });
        await this.pub.send("HDEL", [registry, ...stale]);
      }
      for (const [id, at] of this.gone) if (now - at > 2 * FABRIC_REPLICA_TTL_MS) this.gone.delete(id);
      // a notice heard after the read was answered is newer than the read
      const next = new Map<string, ReplicaAnnouncement>();
      for (const id of new Set([...read.keys(), ...this.heard.keys()])) {
        const a = read.get(id);
        const b = this.heard.get(id);
        const latest = a && b ? (b.at > a.at ? b : a) : (a ?? b)!;
        if (!this.gone.has(id) && isAnnouncementLive(latest.at, now)) next.set(id, latest);
      }
      this.replace(next);
    } catch (error) {
      this.warner.warn("refresh", "fabric refresh failed; peers are as last read", { error: errorMessage(error) });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cancelRefresh?.();
    try {
      const leave: PeerNotice = { kind: "leave", replica: this.replica };
      await Promise.all([
        this.pub.send("HDEL", [this.key("replicas"), this.replica]),
        this.pub.send("PUBLISH", [this.key(PEERS_CHANNEL), JSON.stringify(leave)]),
      ]);
    } catch (error) {
      this.options.logger.warn("replica not removed from the fabric registry; it expires by itself", { error: errorMessage(error) });
    }
    this.sub.close();
    this.pub.close();
  }

  private ownPatterns(): string[] {
    return [...new Set(this.options.patterns())].sort();
  }

  private notice(entry: ReplicaAnnouncement): string {
    const notice: PeerNotice = { kind: "announce", replica: this.replica, at: entry.at, patterns: entry.patterns };
    return JSON.stringify(notice);
  }

  /** Tell the others this replica's patterns when they differ from what they were last told. */
  private async announce(): Promise<void> {
    if (this.closed || !this.opened) return;
    const patterns = this.ownPatterns();
    const told = patterns.join("\n");
    if (told === this.told) return;
    const entry: ReplicaAnnouncement = { at: this.clock.dateNow(), patterns };
    try {
      await Promise.all([
        this.pub.send("HSET", [this.key("replicas"), this.replica, JSON.stringify(entry)]),
        this.pub.send("PUBLISH", [this.key(PEERS_CHANNEL), this.notice(entry)]),
      ]);
      this.told = told;
    } catch (error) {
      this.warner.warn("announce", "fabric announcement failed; the next refresh tells it", { error: errorMessage(error) });
    }
  }

  private onNotice(message: string): void {
    const parsed = PeerNoticeSchema.safeParse(JSON.parse(message));
    if (!parsed.success) {
      this.warner.warn("notice", "malformed fabric notice dropped", { error: parsed.error.issues[0]?.message });
      return;
    }
    const notice = parsed.data;
    if (notice.replica === this.replica || this.closed) return;
    const next = new Map(this.heard);
    if (notice.kind === "leave") {
      this.gone.set(notice.replica, this.clock.dateNow());
      next.delete(notice.replica);
    } else {
      if (this.gone.has(notice.replica)) return;
      const known = next.get(notice.replica);
      if (known && known.at > notice.at) return;
      next.set(notice.replica, { at: notice.at, patterns: notice.patterns });
    }
    this.replace(next);
  }

  /** Take `next` as the live peers; log and tell the listeners when replicas or their patterns changed. */
  private replace(next: Map<string, ReplicaAnnouncement>): void {
    const previous = this.heard;
    this.heard = next;
    const same = next.size === previous.size && [...next].every(([id, a]) => samePatterns(previous.get(id)?.patterns, a.patterns));
    if (same) return;
    this.peerTable = new Map([...next].map(([id, a]) => [id, a.patterns]));
    const patterns = [...new Set([...next.values()].flatMap((a) => a.patterns))].sort();
    this.options.logger.info("replica peers changed", { replica: this.replica, peers: next.size, patterns });
    for (const listener of this.peerListeners) listener();
  }
}

function samePatterns(a: string[] | undefined, b: string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((p, i) => p === b[i]);
}


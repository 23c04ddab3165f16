/**
 * Replicas sharing events and reloads through Redis: real connections to the Redis of the development and CI
 * machines, each run under its own key prefix.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import type { Timers } from "../../../src/core/timers.ts";
import { EventBus } from "../../../src/plugins/events/bus.ts";
import {
  FABRIC_MAX_IN_FLIGHT,
  FABRIC_REFRESH_MS,
  FABRIC_REPLICA_TTL_MS,
  openReplicaFabric,
  RedisFabric,
  type ReplicaFabricOptions,
  type ReplicaFabric,
} from "../../../src/plugins/fabric/index.ts";
import { captureLogger } from "../events/log.ts";
import { testNeeding, TEST_REDIS_URL, uniquePrefix } from "../../helpers/servers.ts";
import { waitFor } from "../../helpers/wait.ts";
import { ownRedis, REDIS_SERVER, testNeedingBinary, type OwnServer } from "../../helpers/own-servers.ts";

const prefix = uniquePrefix("fabric");
const testWithRedis = await testNeeding("redis");
const up = testWithRedis === test;
const opened: ReplicaFabric[] = [];

async function replica(
  reload: (name: string | undefined) => Promise<number> = async () => 1,
  options: { prefix?: string; clock?: ReplicaFabricOptions["clock"] } = {},
) {
  const bus = new EventBus({ logger: captureLogger() });
  const fabric = await openReplicaFabric({ url: TEST_REDIS_URL, prefix, ...options }, bus, (name) => reload(name), captureLogger());
  opened.push(fabric);
  return { bus, fabric };
}

/**
 * A clock moved by hand: its timers run only in advance(), each awaited (the fabric's refresh returns its promise,
 * so an advance ends after the refreshes it ran). Kept rather than the shared fake timers: it starts at the wall
 * clock (the registry's entries are aged against it), awaits each run, and lets a test read the armed timers.
 */
function handClock(start = Date.now()) {
  const timers: Array<{ fn: () => unknown; ms: number; next: number; live: boolean }> = [];
  let now = start;
  const clock: Pick<Timers, "dateNow" | "every"> & { timers: typeof timers; now(): number; advance(ms: number): Promise<void> } = {
    timers,
    now: () => now,
    dateNow: () => now,
    every(fn, ms) {
      const timer = { fn, ms, next: now + ms, live: true };
      timers.push(timer);
      return () => void (timer.live = false);
    },
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.live && t.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        now = due.next;
        due.next += due.ms;
        await due.fn();
      }
      now = end;
    },
  };
  return clock;
}

/** Every replica has read the others' announcements (a refresh of each, in turn). */
async function settle(): Promise<void> {
  for (let round = 0; round < 2; round++) for (const f of opened) await f.fabric.refresh();
}


afterAll(async () => {
  for (const f of opened.splice(0)) await f.close();
  if (!up) return;
  const redis = new RedisClient(TEST_REDIS_URL);
  await redis.send("DEL", [`${prefix}:replicas`]);
  redis.close();
});

const it = (name: string, body: () => Promise<void>) => testWithRedis(name, body);

describe("events across replicas", () => {
  it("an event published on one replica reaches a subscriber on another, once; its own subscriber gets it once", async () => {
    const a = await replica();
    const b = await replica();
    const c = await replica();
    const onA = a.bus.subscribe("app.*");
    const onC = c.bus.subscribe("app.*");
    await settle();
    expect(a.bus.wants("app.hello")).toBe(true);
    a.bus.publish("app.hello", { n: 1 });
    await waitFor(() => onC.stats().delivered + onC.stats().queued > 0, "the event on replica c");
    const got = await onC.next();
    expect(got).toMatchObject({ topic: "app.hello", payload: { n: 1 } });
    await Bun.sleep(50);
    expect(onC.tryNext() ?? null).toBeNull();
    expect((await onA.next())?.payload).toEqual({ n: 1 });
    expect(onA.tryNext() ?? null).toBeNull();
    // b subscribes to nothing: nothing published on it goes out
    b.bus.publish("nobody.listens", {});
    expect(b.fabric.events.forwarded).toBe(0);
    onA.close();
    onC.close();
  });

  it("a topic no replica subscribes to is not sent to Redis; a new subscription is seen at once, without a refresh", async () => {
    const clock = handClock();
    const own = { prefix: uniquePrefix("fabric-notice"), clock };
    const a = await replica(undefined, own);
    const b = await replica(undefined, own);
    // b read the registry when it joined; a heard b's notice
    expect(b.fabric.fabric.peers.has(a.fabric.fabric.replica)).toBe(true);
    await waitFor(() => a.fabric.fabric.peers.has(b.fabric.fabric.replica), "a to hear b join");
    const before = a.fabric.events.forwarded;
    a.bus.publish("late.topic", 1);
    expect(a.fabric.events.forwarded).toBe(before);
    const sub = b.bus.subscribe("late.*");
    await waitFor(() => a.bus.wants("late.topic"), "a to hear b's new subscription");
    a.bus.publish("late.topic", 2);
    expect(a.fabric.events.forwarded).toBe(before + 1);
    expect((await sub.next())?.payload).toBe(2);
    sub.close();
    await waitFor(() => !a.bus.wants("late.topic"), "a to hear b's subscription closed");
    await b.fabric.close();
    await waitFor(() => !a.fabric.fabric.peers.has(b.fabric.fabric.replica), "a to hear b leave");
    // all of it by notice: the refresh timers never ran
    expect(clock.timers.length).toBe(2);
    expect(clock.timers.every((t) => t.next === t.ms + clock.now())).toBe(true);
  });

  it("several subscriptions made together are told in one notice", async () => {
    const own = { prefix: uniquePrefix("fabric-burst"), clock: handClock() };
    const a = await replica(undefined, own);
    const b = await replica(undefined, own);
    await waitFor(() => a.fabric.fabric.peers.has(b.fabric.fabric.replica), "a to hear b join");
    const notices: string[] = [];
    await a.fabric.fabric.listen("peers", (message) => notices.push(message));
    const subs = ["one.*", "two.*", "three.*"].map((p) => b.bus.subscribe(p));
    await waitFor(() => a.bus.wants("three.x"), "a to hear b's subscriptions");
    await Bun.sleep(50);
    expect(notices).toHaveLength(1);
    expect(JSON.parse(notices[0]!)).toMatchObject({ kind: "announce", replica: b.fabric.fabric.replica, patterns: ["one.*", "three.*", "two.*"] });
    for (const sub of subs) sub.close();
  });
});

describe("bad notices", () => {
  it("a peers notice that is not JSON, or not a notice, is dropped with a warning; the replica keeps hearing the others", async () => {
    const own = uniquePrefix("fabric-bad");
    const logger = captureLogger();
    const options = { url: TEST_REDIS_URL, prefix: own, clock: handClock() };
    const a = new RedisFabric({ ...options, logger, patterns: () => [] });
    const b = new RedisFabric({ ...options, logger: captureLogger(), patterns: () => ["b.*"] });
    const redis = new RedisClient(TEST_REDIS_URL);
    try {
      await a.open();
      await redis.send("PUBLISH", [`${own}:peers`, "not json {"]);
      await redis.send("PUBLISH", [`${own}:peers`, JSON.stringify({ kind: "announce", replica: "x" })]);
      await waitFor(() => logger.records.filter((r) => r.level === "warn").length >= 2, "both bad notices warned about");
      expect(logger.records.map((r) => r.message)).toEqual(expect.arrayContaining(["fabric message not handled", "malformed fabric notice dropped"]));
      expect(a.peers.size).toBe(0);
      await b.open();
      await waitFor(() => a.peers.get(b.replica)?.[0] === "b.*", "a to hear b join");
    } finally {
      await b.close();
      await a.close();
      await redis.send("DEL", [`${own}:replicas`]);
      redis.close();
    }
  });
});

describe("the registry refresh", () => {
  it("an entry that is not an announcement is removed, and the refresh still reads the others", async () => {
    const own = uniquePrefix("fabric-bad-entry");
    const options = { url: TEST_REDIS_URL, prefix: own, clock: handClock() };
    const logger = captureLogger();
    const a = new RedisFabric({ ...options, logger, patterns: () => [] });
    const b = new RedisFabric({ ...options, logger: captureLogger(), patterns: () => ["b.*"] });
    const redis = new RedisClient(TEST_REDIS_URL);
    try {
      await redis.send("HSET", [`${own}:replicas`, "garbage", "{not json", "shapeless", JSON.stringify({ at: "noon" })]);
      await b.open();
      await a.open();
      await a.refresh();
      expect(a.peers.get(b.replica)).toEqual(["b.*"]);
      expect(await redis.send("HKEYS", [`${own}:replicas`])).toEqual(expect.arrayContaining([a.replica, b.replica]));
      expect(await redis.send("HEXISTS", [`${own}:replicas`, "garbage"])).toBe(0);
      expect(await redis.send("HEXISTS", [`${own}:replicas`, "shapeless"])).toBe(0);
      expect(logger.records.filter((r) => r.level === "warn")).toEqual([]);
    } finally {
      await b.close();
      await a.close();
      await redis.send("DEL", [`${own}:replicas`]);
      redis.close();
    }
  });

  it(`runs every FABRIC_REFRESH_MS; a replica whose entry is FABRIC_REPLICA_TTL_MS old is live, one ms older gone`, async () => {
    expect(FABRIC_REPLICA_TTL_MS % FABRIC_REFRESH_MS).toBe(0);
    expect(FABRIC_REPLICA_TTL_MS).toBeGreaterThanOrEqual(2 * FABRIC_REFRESH_MS);
    const clock = handClock();
    const own = uniquePrefix("fabric-ttl");
    const a = await replica(undefined, { prefix: own, clock });
    const fabric = a.fabric.fabric;
    const start = clock.now();
    const redis = new RedisClient(TEST_REDIS_URL);
    // a replica that was killed: its entry, and no notice
    const ghost = (at: number) => redis.send("HSET", [`${own}:replicas`, "ghost", JSON.stringify({ at, patterns: ["ghost.*"] })]);
    try {
      await ghost(start + FABRIC_REFRESH_MS - FABRIC_REPLICA_TTL_MS);
      await clock.advance(FABRIC_REFRESH_MS - 1);
      expect(fabric.peers.has("ghost")).toBe(false);
      await clock.advance(1);
      expect(fabric.peers.get("ghost")).toEqual(["ghost.*"]);
      expect(a.bus.wants("ghost.topic")).toBe(true);
      await ghost(start + 2 * FABRIC_REFRESH_MS - FABRIC_REPLICA_TTL_MS - 1);
      await clock.advance(FABRIC_REFRESH_MS);
      expect(fabric.peers.has("ghost")).toBe(false);
      expect(a.bus.wants("ghost.topic")).toBe(false);
    } finally {
      await redis.send("DEL", [`${own}:replicas`]);
      redis.close();
    }
  });
});

describe("bounds", () => {
  it(`publishes never wait: ${FABRIC_MAX_IN_FLIGHT} unacknowledged are accepted, the next ones are dropped and counted`, async () => {
    const fabric = new RedisFabric({ url: TEST_REDIS_URL, prefix, logger: captureLogger(), patterns: () => [] });
    await fabric.open();
    let accepted = 0;
    for (let i = 0; i < FABRIC_MAX_IN_FLIGHT + 10; i++) if (fabric.publish("bounds", "x")) accepted++;
    expect(accepted).toBe(FABRIC_MAX_IN_FLIGHT);
    expect(fabric.dropped).toBe(10);
    await waitFor(() => fabric.publish("bounds", "again"), "Redis to acknowledge");
    await fabric.close();
  });
});

describe("reloads across replicas", () => {
  it("a reload through one replica reloads every other one and lists each outcome; a failure is reported", async () => {
    const asked: string[] = [];
    const a = await replica();
    const b = await replica(async (name) => (asked.push(`b:${name}`), 7));
    const c = await replica(async () => {
      throw new Error("plugin x failed to build");
    });
    await settle();
    const outcomes = await a.fabric.reloads.reloadOthers("x", { force: false, all: false });
    expect(asked).toEqual(["b:x"]);
    const byReplica = new Map(outcomes.map((o) => [o.replica, o]));
    expect(byReplica.get(b.fabric.fabric.replica)).toEqual({ replica: b.fabric.fabric.replica, ok: true, generation: 7, error: null });
    expect(byReplica.get(c.fabric.fabric.replica)).toMatchObject({ ok: false, generation: null, error: "plugin x failed to build" });
  });
});

const testWithOwnRedis = testNeedingBinary(REDIS_SERVER, "redis-server");
let own: OwnServer | null = null;
afterAll(async () => {
  await own?.dispose();
});

describe("through a Redis outage (a redis-server of the test's own)", () => {
  testWithOwnRedis("while Redis is away publishes return at once, dropped and counted; after it, events flow again and what was told meanwhile is read", async () => {
    own = await ownRedis();
    // no refresh runs: what b told during the outage reaches a through the reconnections alone
    const options = { url: own.url, prefix: uniquePrefix("outage"), logger: captureLogger(), clock: handClock() };
    let bPatterns = ["x"];
    const a = new RedisFabric({ ...options, patterns: () => [] });
    const b = new RedisFabric({ ...options, patterns: () => bPatterns });
    await a.open();
    await b.open();
    const got: string[] = [];
    await b.listen("events", (message) => got.push(message));
    expect(a.publish("events", "before")).toBe(true);
    await waitFor(() => got.includes("before"), "the event before the outage");

    await own.stop();
    await waitFor(() => a.link.state === "reconnecting", "the fabric to see Redis gone");
    expect(a.publish("events", "during")).toBe(false);
    expect(a.publish("events", "during")).toBe(false);
    expect(a.dropped).toBe(2);
    bPatterns = ["x", "y"];
    b.patternsChanged();

    await own.start();
    await waitFor(() => a.link.state === "up", "the fabric back");
    await waitFor(() => a.publish("events", "after") && got.includes("after"), "an event after the outage");
    expect(got).not.toContain("during");
    await waitFor(() => a.peers.get(b.replica)?.includes("y"), "a to read b's patterns told during the outage");
    await a.close();
    await b.close();
  });
});

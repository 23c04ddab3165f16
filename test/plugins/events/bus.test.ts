import { describe, expect, test } from "bun:test";
import {
  EVENT_MAX_PAYLOAD_BYTES,
  EVENT_MAX_PUBLISH_DEPTH,
  EVENT_MAX_SUBSCRIPTIONS,
  EVENT_QUEUE_CAPACITY,
  EVENT_TOPIC_MAX_BYTES,
  EventBus,
  lenientPublisher,
} from "../../../src/plugins/events/index.ts";
import { isPrxError } from "../../../src/core/errors.ts";
import { captureLogger } from "./log.ts";

function newBus() {
  const logger = captureLogger();
  return { bus: new EventBus({ logger }), logger };
}

function expectPrxError(fn: () => unknown, code: string): void {
  try {
    fn();
  } catch (error) {
    expect(isPrxError(error)).toBe(true);
    expect((error as { code: string }).code).toBe(code);
    return;
  }
  throw new Error(`expected PrxError ${code}`);
}

describe("EventBus delivery", () => {
  test("subscribers receive matching events in order via next() and for-await", async () => {
    const { bus } = newBus();
    const sub = bus.subscribe("prx.lifecycle.*", { name: "t" });
    const other = bus.subscribe("prx.cron.*");
    bus.publish("prx.lifecycle.agent_start", { n: 1 });
    bus.publish("prx.cron.x", { n: 2 });
    bus.publish("prx.lifecycle.agent_stop", { n: 3 });
    const first = await sub.next();
    expect(first?.topic).toBe("prx.lifecycle.agent_start");
    expect(first?.payloadJson).toBe('{"n":1}');
    expect(first?.depth).toBe(0);
    sub.close();
    expect(await sub.next()).toBeNull();
    const seen: string[] = [];
    setTimeout(() => other.close(), 0);
    for await (const event of other) seen.push(event.payloadJson);
    expect(seen).toEqual(['{"n":2}']);
  });

  test("a waiting next() is woken by publish and by close", async () => {
    const { bus } = newBus();
    const sub = bus.subscribe("a");
    const waiting = sub.next();
    bus.publish("a", "x");
    expect((await waiting)?.payload).toBe("x");
    const pending = sub.next();
    sub.close();
    expect(await pending).toBeNull();
    expect(sub.closed).toBe(true);
    expect(bus.stats().subscriptions).toHaveLength(0);
  });

  test("undefined payload is published as null", async () => {
    const { bus } = newBus();
    const sub = bus.subscribe("a");
    bus.publish("a", undefined);
    expect(sub.tryNext()?.payloadJson).toBe("null");
  });

  test("a stalled subscriber does not slow publishers: 100k events, queue stays at capacity, drops counted", () => {
    const { bus, logger } = newBus();
    const stalled = bus.subscribe("prx.test.*", { name: "stalled" });
    let received = 0;
    bus.on("prx.test.*", () => {
      received++;
    });
    const total = 100_000;
    for (let i = 0; i < total; i++) bus.publish("prx.test.tick", { i });
    expect(received).toBe(total);
    const s = stalled.stats();
    expect(s.queued).toBe(EVENT_QUEUE_CAPACITY);
    expect(s.dropped).toBe(total - EVENT_QUEUE_CAPACITY);
    expect(bus.stats().published).toBe(total);
    expect(bus.stats().dropped).toBe(total - EVENT_QUEUE_CAPACITY);
    // The queue keeps the oldest events; the warning is rate-limited to one in this burst.
    expect(stalled.tryNext()?.payloadJson).toBe('{"i":0}');
    const warnings = logger.records.filter((r) => r.message.includes("queue full"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields?.subscriber).toBe("stalled");
  });

  test("queue capacity option is bounded by EVENT_QUEUE_CAPACITY", () => {
    const { bus } = newBus();
    const small = bus.subscribe("a", { capacity: 2 });
    for (let i = 0; i < 5; i++) bus.publish("a", i);
    expect(small.stats()).toMatchObject({ queued: 2, dropped: 3 });
    expect(() => bus.subscribe("a", { capacity: EVENT_QUEUE_CAPACITY })).not.toThrow();
    expectPrxError(() => bus.subscribe("a", { capacity: EVENT_QUEUE_CAPACITY + 1 }), "LIMIT_EXCEEDED");
    expectPrxError(() => bus.subscribe("a", { capacity: 0 }), "LIMIT_EXCEEDED");
  });

  test("listener errors (thrown or rejected) are isolated and counted", async () => {
    const { bus, logger } = newBus();
    const bad = bus.on("a", () => {
      throw new Error("boom");
    });
    const badAsync = bus.on("a", async () => {
      throw new Error("async boom");
    });
    let good = 0;
    bus.on("a", () => {
      good++;
    });
    bus.publish("a", 1);
    bus.publish("a", 2);
    await Bun.sleep(0);
    expect(good).toBe(2);
    expect(bad.stats()).toMatchObject({ calls: 2, errors: 2 });
    expect(badAsync.stats()).toMatchObject({ calls: 2, errors: 2 });
    expect(logger.records.filter((r) => r.message === "event listener failed")).toHaveLength(2);
    bad.off();
    bus.publish("a", 3);
    expect(bad.stats().calls).toBe(2);
  });
});

describe("EventBus.wants", () => {
  test("false while nothing matches the topic, true once a subscription or listener does; bad topics are wanted", () => {
    const { bus } = newBus();
    expect(bus.wants("prx.lifecycle.agent_start")).toBe(false);
    const sub = bus.subscribe("prx.lifecycle.*");
    expect(bus.wants("prx.lifecycle.agent_start")).toBe(true);
    expect(bus.wants("other")).toBe(false);
    sub.close();
    expect(bus.wants("prx.lifecycle.agent_start")).toBe(false);
    const listener = bus.on("other", () => {});
    expect(bus.wants("other")).toBe(true);
    listener.off();
    // publish is what reports a bad topic, so it is never skipped
    expect(bus.wants("")).toBe(true);
  });
});

describe("EventBus limits", () => {
  test(`payload of exactly ${EVENT_MAX_PAYLOAD_BYTES} JSON bytes passes, one more fails`, () => {
    const { bus } = newBus();
    const sub = bus.subscribe("p");
    bus.publish("p", "a".repeat(EVENT_MAX_PAYLOAD_BYTES - 2));
    expect(sub.tryNext()?.payloadJson.length).toBe(EVENT_MAX_PAYLOAD_BYTES);
    expectPrxError(() => bus.publish("p", "a".repeat(EVENT_MAX_PAYLOAD_BYTES - 1)), "PAYLOAD_TOO_LARGE");
    // Bytes, not characters: "é" is 2 bytes in UTF-8.
    bus.publish("p", "é".repeat((EVENT_MAX_PAYLOAD_BYTES - 2) / 2));
    expectPrxError(() => bus.publish("p", "é".repeat((EVENT_MAX_PAYLOAD_BYTES - 2) / 2) + "a"), "PAYLOAD_TOO_LARGE");
    expect(bus.stats()).toMatchObject({ published: 2, rejected: 2 });
  });

  test("payloads that are not JSON-serializable are refused", () => {
    const { bus } = newBus();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expectPrxError(() => bus.publish("p", cyclic), "BAD_REQUEST");
    expectPrxError(() => bus.publish("p", { n: 1n }), "BAD_REQUEST");
  });

  test(`topic of 1..${EVENT_TOPIC_MAX_BYTES} bytes passes, 0 or ${EVENT_TOPIC_MAX_BYTES + 1} fails`, () => {
    const { bus } = newBus();
    bus.publish("a", 1);
    bus.publish("a".repeat(EVENT_TOPIC_MAX_BYTES), 1);
    bus.publish("é".repeat(EVENT_TOPIC_MAX_BYTES / 2), 1);
    expectPrxError(() => bus.publish("", 1), "LIMIT_EXCEEDED");
    expectPrxError(() => bus.publish("a".repeat(EVENT_TOPIC_MAX_BYTES + 1), 1), "LIMIT_EXCEEDED");
    expectPrxError(() => bus.publish("é".repeat(EVENT_TOPIC_MAX_BYTES / 2) + "a", 1), "LIMIT_EXCEEDED");
  });

  test(`nested publish depth ${EVENT_MAX_PUBLISH_DEPTH} passes, ${EVENT_MAX_PUBLISH_DEPTH + 1} fails`, () => {
    const { bus } = newBus();
    const depths: number[] = [];
    const refusals: unknown[] = [];
    bus.on("loop", (event) => {
      depths.push(event.depth);
      try {
        bus.publish("loop", event.depth + 1);
      } catch (error) {
        refusals.push(error);
      }
    });
    bus.publish("loop", 0);
    expect(depths).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(refusals).toHaveLength(1);
    expect(isPrxError(refusals[0], "LIMIT_EXCEEDED")).toBe(true);
    expect(bus.stats()).toMatchObject({ published: EVENT_MAX_PUBLISH_DEPTH + 1, rejected: 1 });
    // Depth is per call chain: a fresh top-level publish starts at 0 again.
    bus.publish("other", 1);
    expect(bus.stats().published).toBe(EVENT_MAX_PUBLISH_DEPTH + 2);
  });

  test(`${EVENT_MAX_SUBSCRIPTIONS} subscriptions and listeners pass, one more fails until one closes`, () => {
    const { bus } = newBus();
    const subs = [];
    for (let i = 0; i < EVENT_MAX_SUBSCRIPTIONS - 1; i++) subs.push(bus.subscribe(`t.${i}`));
    const listener = bus.on("t.*", () => {});
    expectPrxError(() => bus.subscribe("x"), "LIMIT_EXCEEDED");
    expectPrxError(() => bus.on("x", () => {}), "LIMIT_EXCEEDED");
    listener.off();
    const last = bus.subscribe("x");
    expectPrxError(() => bus.subscribe("y"), "LIMIT_EXCEEDED");
    subs[0]!.close();
    expect(() => bus.subscribe("y")).not.toThrow();
    last.close();
  });

  test("close() closes every subscription and refuses new ones", async () => {
    const { bus } = newBus();
    const sub = bus.subscribe("*");
    const waiting = sub.next();
    bus.close();
    expect(await waiting).toBeNull();
    expectPrxError(() => bus.subscribe("*"), "PLUGIN_UNSUPPORTED");
  });

  test("lenientPublisher never throws and counts refusals", () => {
    const { bus, logger } = newBus();
    const publisher = lenientPublisher(bus, logger);
    publisher.publish("", 1);
    publisher.publish("ok", "a".repeat(EVENT_MAX_PAYLOAD_BYTES));
    publisher.publish("ok", 1);
    expect(publisher.refused).toBe(2);
    expect(bus.stats().published).toBe(1);
    expect(logger.records.filter((r) => r.message === "event not published").length).toBe(2);
  });
});

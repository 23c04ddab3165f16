import { describe, expect, test } from "bun:test";
import {
  EVENT_ROUTE_CACHE_SIZE,
  EVENT_WARN_INTERVAL_MS,
  EventBus,
  RateLimitedWarner,
} from "../../../src/plugins/events/index.ts";
import { captureLogger } from "./log.ts";

describe("rate-limited warnings", () => {
  test(`one warning per key within ${EVENT_WARN_INTERVAL_MS} ms; the next one reports how many were suppressed`, () => {
    const logger = captureLogger();
    let now = 1000;
    const warner = new RateLimitedWarner(logger, EVENT_WARN_INTERVAL_MS, () => now);
    warner.warn("a", "drop");
    now += EVENT_WARN_INTERVAL_MS - 1;
    warner.warn("a", "drop");
    warner.warn("b", "other");
    now += 1;
    warner.warn("a", "drop", { n: 1 });
    expect(logger.records.map((r) => [r.message, r.fields])).toEqual([
      ["drop", {}],
      ["other", {}],
      ["drop", { n: 1, suppressed_since_last_warning: 1 }],
    ]);
  });
});

describe("route cache", () => {
  test(`routing stays correct past ${EVENT_ROUTE_CACHE_SIZE} distinct topics and across (un)subscribes`, () => {
    const bus = new EventBus({ logger: captureLogger() });
    const sub = bus.subscribe("t.*");
    for (let i = 0; i <= EVENT_ROUTE_CACHE_SIZE; i++) bus.publish(`t.${i}`, i);
    expect(sub.stats().queued).toBe(EVENT_ROUTE_CACHE_SIZE);
    expect(sub.stats().dropped).toBe(1);
    const late = bus.subscribe("t.0");
    bus.publish("t.0", "again");
    expect(late.tryNext()?.payload).toBe("again");
    late.close();
    bus.publish("t.0", "closed");
    expect(late.tryNext()).toBeUndefined();
  });
});

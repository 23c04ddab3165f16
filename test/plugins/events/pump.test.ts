import { describe, expect, test } from "bun:test";
import { EVENT_MAX_PUBLISH_DEPTH, EventBus, startPump, subscribeGuest } from "../../../src/plugins/events/index.ts";
import { isPrxError } from "../../../src/core/errors.ts";
import type { EventSubscriber } from "../../../src/plugins/wasm/sandbox/index.ts";
import { captureLogger } from "./log.ts";
import { waitFor } from "../../helpers/wait.ts";

describe("startPump", () => {
  test("delivers (topic, payload JSON) continuously and isolates failures", async () => {
    const logger = captureLogger();
    const bus = new EventBus({ logger });
    const seen: string[] = [];
    const pump = startPump(
      bus.subscribe("prx.lifecycle.*", { name: "hook/p" }),
      async (topic, payload) => {
        if (payload === '"bad"') throw new Error("guest trapped");
        seen.push(`${topic} ${payload}`);
      },
      { logger },
    );
    bus.publish("prx.lifecycle.agent_start", { a: 1 });
    bus.publish("prx.lifecycle.error", "bad");
    bus.publish("prx.lifecycle.agent_stop", { a: 2 });
    await waitFor(() => pump.stats().delivered + pump.stats().errors === 3);
    expect(seen).toEqual(['prx.lifecycle.agent_start {"a":1}', 'prx.lifecycle.agent_stop {"a":2}']);
    const stats = pump.stats();
    expect(stats).toMatchObject({ delivered: 2, errors: 1, running: true });
    expect(stats.lastError?.message).toBe("guest trapped");
    expect(stats.lastEvent?.topic).toBe("prx.lifecycle.agent_stop");
    expect(logger.records.some((r) => r.message === "event delivery failed")).toBe(true);
    await pump.stop();
    expect(pump.stats().running).toBe(false);
    expect(bus.stats().subscriptions).toHaveLength(0);
  });

  test("stop waits for the in-flight delivery and unregisters", async () => {
    const bus = new EventBus({ logger: captureLogger() });
    let release!: () => void;
    let finished = false;
    const pump = startPump(bus.subscribe("a"), async () => {
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    });
    bus.publish("a", 1);
    await waitFor(() => release !== undefined);
    const stopping = pump.stop();
    expect(bus.stats().subscriptions).toHaveLength(0);
    release();
    await stopping;
    expect(finished).toBe(true);
  });

  test("a guest republishing from its on-event export hits the depth limit", async () => {
    const logger = captureLogger();
    const bus = new EventBus({ logger });
    const pump = startPump(
      bus.subscribe("loop"),
      async () => {
        await Bun.sleep(0);
        bus.publish("loop", {});
      },
      { logger },
    );
    bus.publish("loop", {});
    await waitFor(() => pump.stats().errors === 1);
    expect(bus.stats().published).toBe(EVENT_MAX_PUBLISH_DEPTH + 1);
    expect(pump.stats().delivered).toBe(EVENT_MAX_PUBLISH_DEPTH);
    expect(pump.stats().lastError?.message).toContain("nested 9 levels");
    await pump.stop();
  });
});

describe("subscribeGuest", () => {
  test("a hook exporting on-event gets a pump over all its patterns, each event delivered once", async () => {
    const bus = new EventBus({ logger: captureLogger() });
    const seen: string[] = [];
    const pump = subscribeGuest(
      bus,
      { plugin: "audit", capability: "on-stop", type: "hook", exportsOnEvent: true },
      ["agent_end", "prx.lifecycle.*"],
      async (topic) => {
        seen.push(topic);
      },
      captureLogger(),
    );
    expect(bus.stats().subscriptions[0]).toMatchObject({ name: "audit/on-stop", pattern: "agent_end,prx.lifecycle.*" });
    bus.publish("prx.lifecycle.agent_stop", {});
    bus.publish("prx.cron.x", {});
    await waitFor(() => pump.stats().delivered === 1);
    expect(seen).toEqual(["prx.lifecycle.agent_stop"]);
    await pump.stop();
    expect(bus.stats().subscriptions).toHaveLength(0);
  });

  test("other capabilities, and hooks without on-event, get an explicit unsupported error", () => {
    const bus = new EventBus({ logger: captureLogger() });
    const deliver = async () => {};
    for (const guest of [
      { plugin: "p", capability: "t", type: "tool", exportsOnEvent: true },
      { plugin: "p", capability: "h", type: "hook", exportsOnEvent: false },
    ]) {
      try {
        subscribeGuest(bus, guest, "*", deliver);
        throw new Error("accepted");
      } catch (error) {
        expect(isPrxError(error, "PLUGIN_UNSUPPORTED")).toBe(true);
      }
    }
    expect(() => bus.subscribe([])).toThrow(/at least one event pattern/);
    expect(bus.stats().subscriptions).toHaveLength(0);
  });
});

describe("callback subscriptions (the sandbox's EventSubscriber shape)", () => {
  test("subscribe(pattern, handler) pumps parsed payloads and returns an unsubscribe function", async () => {
    const bus = new EventBus({ logger: captureLogger() });
    const subscriber: EventSubscriber = bus;
    const seen: [string, unknown][] = [];
    const off = subscriber.subscribe("agent_end", (topic, payload) => {
      seen.push([topic, payload]);
    });
    bus.publish("prx.lifecycle.agent_stop", { reply: "hi" });
    bus.publish("prx.lifecycle.agent_start", {});
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([["prx.lifecycle.agent_stop", { reply: "hi" }]]);
    expect(bus.stats().subscriptions).toHaveLength(1);
    off();
    expect(bus.stats().subscriptions).toHaveLength(0);
  });
});

import { describe, expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import { MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN, wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { admitted, failure, hostPerFile } from "./helpers.ts";

/** The non-tool test plugins (middleware, hooks, cron, providers, storage). */
const t = hostPerFile();

describe("capability worlds", () => {
  test("middleware process returns the envelope unchanged", async () => {
    const inst = await wasmLoader.load(admitted("middleware-pass"), t.host);
    const envelope = JSON.stringify({ stage: "inbound", message: { content: "hi" } });
    expect(await inst.invoke({ type: "middleware", name: "passthrough" }, "process", ["inbound", envelope])).toBe(
      envelope,
    );
    await inst.release();
  });

  test("hook on-event stores the last event in kv", async () => {
    const inst = await wasmLoader.load(admitted("hook-kv"), t.host);
    const cap = { type: "hook" as const, name: "remember-events" };
    expect(await inst.invoke(cap, "on-event", ["prx.lifecycle.turn_complete", '{"turn":1}'])).toBeUndefined();
    const rows = t.db
      .query<{ key: string; value: Uint8Array }, [string]>(
        "SELECT key, value FROM plugin_kv WHERE plugin = ? ORDER BY key",
      )
      .all("hook-kv")
      .map((r) => [r.key, new TextDecoder().decode(r.value)]);
    expect(rows).toEqual([
      ["last-event", "prx.lifecycle.turn_complete"],
      ["last-payload", '{"turn":1}'],
    ]);
    await inst.release();
  });

  test("a hook may subscribe: matching bus events are pumped into its on-event; release unsubscribes", async () => {
    const handlers = new Map<number, { pattern: string; handler: (topic: string, payload: unknown) => void }>();
    let next = 1;
    const bus = {
      publish(topic: string, payload: unknown) {
        for (const h of handlers.values()) {
          if (h.pattern.endsWith("*") ? topic.startsWith(h.pattern.slice(0, -1)) : topic === h.pattern)
            h.handler(topic, payload);
        }
      },
      subscribe(pattern: string, handler: (topic: string, payload: unknown) => void) {
        const id = next++;
        handlers.set(id, { pattern, handler });
        return () => handlers.delete(id);
      },
    };
    const inst = await wasmLoader.load(
      admitted("hook-kv", { name: "hook-sub", granted: new Set(["log", "config", "kv", "events"]) }),
      {
        ...t.host,
        events: bus,
      },
    );
    const cap = { type: "hook" as const, name: "remember-events" };
    await inst.invoke(cap, "on-event", ["prx.test.subscribe", "demo.*"]);
    expect(handlers.size).toBe(1);
    bus.publish("demo.ping", { n: 1 });
    bus.publish("other.topic", { n: 2 });
    const lastEvent = () =>
      t.db
        .query<{ value: Uint8Array }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin = ? AND key = ?")
        .get("hook-sub", "last-payload");
    for (let i = 0; i < 200 && !lastEvent(); i++) await Bun.sleep(5);
    expect(new TextDecoder().decode(lastEvent()!.value)).toBe('{"n":1}');
    await inst.release();
    expect(handlers.size).toBe(0);
  });

  test(`a plugin holds ${MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN} event subscriptions; one more is an error naming the limit`, async () => {
    let open = 0;
    const bus = {
      publish() {},
      subscribe() {
        open++;
        return () => void open--;
      },
    };
    const inst = await wasmLoader.load(
      admitted("hook-kv", { name: "hook-many", granted: new Set(["log", "config", "kv", "events"]) }),
      { ...t.host, events: bus },
    );
    const cap = { type: "hook" as const, name: "remember-events" };
    for (let i = 0; i < MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN; i++) {
      await inst.invoke(cap, "on-event", ["prx.test.subscribe", `demo.${i}`]);
    }
    expect(open).toBe(MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN);
    const error = await failure(inst.invoke(cap, "on-event", ["prx.test.subscribe", "demo.last"]));
    expect(error.message).toContain(`more than ${MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN} event subscriptions`);
    expect(open).toBe(MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN);
    await inst.release();
    expect(open).toBe(0);
  });

  test("subscribe without the events grant is an error result naming the permission", async () => {
    const inst = await wasmLoader.load(admitted("hook-kv", { name: "hook-nogrant" }), t.host);
    const error = await failure(
      inst.invoke({ type: "hook", name: "remember-events" }, "on-event", ["prx.test.subscribe", "x"]),
    );
    expect(isPrxError(error, "PLUGIN_ERROR")).toBe(true);
    expect(error.message).toContain('"events" permission');
    await inst.release();
  });

  test("cron run returns its string", async () => {
    const inst = await wasmLoader.load(admitted("cron-str"), t.host);
    expect(await inst.invoke({ type: "cron", name: "tick" }, "run", [])).toBe("cron ran");
    await inst.release();
  });

  test("provider chat answers from the last user message; no user message is a PLUGIN_ERROR", async () => {
    const inst = await wasmLoader.load(admitted("provider-echo"), t.host);
    const cap = { type: "provider" as const, name: "wasm-echo" };
    expect(await inst.invoke(cap, "name", [])).toBe("wasm-echo");
    const messages = [
      { role: "system", content: "be brief" },
      { role: "user", content: "first" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "ping ✓" },
    ];
    expect(await inst.invoke(cap, "chat", [messages, "m", 0.2])).toEqual({ text: "wasm says: ping ✓", toolCalls: [] });
    const error = await failure(inst.invoke(cap, "chat", [[{ role: "system", content: "x" }], "m", 0]));
    expect(isPrxError(error, "PLUGIN_ERROR")).toBe(true);
    expect(error.message).toBe("no user message");
    await inst.release();
  });

  test("storage (importing kv, which its world does not) loads and stores, recalls, counts, forgets", async () => {
    const inst = await wasmLoader.load(admitted("storage-kv"), t.host);
    const cap = { type: "storage" as const, name: "wasm-kv" };
    expect(await inst.invoke(cap, "health-check", [])).toBe(true);
    expect(await inst.invoke(cap, "name", [])).toBe("wasm-kv");
    await inst.invoke(cap, "store-memory", ["k1", "the cat sat", "facts", undefined]);
    await inst.invoke(cap, "store-memory", ["k2", "dogs bark", "facts", "session-1"]);
    expect(await inst.invoke(cap, "count-memories", [])).toBe(2);
    expect(await inst.invoke(cap, "recall-memory", ["cat", 10, undefined])).toEqual([
      {
        id: "m:k1",
        key: "k1",
        content: "the cat sat",
        category: "facts",
        timestamp: "1970-01-01T00:00:00Z",
        score: undefined,
      },
    ]);
    expect(((await inst.invoke(cap, "recall-memory", ["", 1, undefined])) as unknown[]).length).toBe(1);
    expect(await inst.invoke(cap, "forget-memory", ["k1"])).toBe(true);
    expect(await inst.invoke(cap, "forget-memory", ["k1"])).toBe(false);
    expect(await inst.invoke(cap, "count-memories", [])).toBe(1);
    await inst.release();
  });
});

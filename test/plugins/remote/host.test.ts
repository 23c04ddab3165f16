import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import {
  createRemoteProvider,
  REMOTE_COMPOSE_STATE_MAX_MESSAGES,
  REMOTE_MAX_MESSAGE_BYTES,
  REMOTE_MAX_PENDING_CALLS,
  type RemotePluginHandle,
} from "../../../src/plugins/remote/index.ts";
import type { Tool } from "../../../src/tools/types.ts";
import { hostFixture, startProbe, toolContext, type Transport } from "./helpers.ts";

describe.each(["worker", "process"] as Transport[])("remote plugin over %s", (transport) => {
  let host: ReturnType<typeof hostFixture>;
  let handle: RemotePluginHandle;
  const tool = (name: string): Tool => handle.tools().find((t) => t.spec.name === name)!;
  const proxy = async (method: string, ...args: unknown[]) => {
    const result = await tool("PROXY").execute({ method, args }, toolContext());
    const value = result.success ? (JSON.parse(result.output) as { value: unknown }).value : undefined;
    return { result, value };
  };

  beforeAll(async () => {
    host = hostFixture();
    host.history.set("s1", [
      { role: "user", content: "hello there" },
      { role: "assistant", content: "hi" },
    ]);
    handle = await startProbe(host, transport, { settings: { MARK: "m1", FROM_MANIFEST: "manifest-value" } });
  });
  afterAll(async () => {
    await handle.shutdown();
    host.close();
  });

  test("announced surfaces include init-time additions", () => {
    const d = handle.descriptor();
    expect(d.providers?.map((p) => p.name)).toEqual(["STATIC", "LATE_PROVIDER"]);
    expect(handle.modelTypes().sort()).toEqual(["TEXT_LARGE", "TEXT_SMALL"]);
    expect(handle.eventSubscriptions()).toEqual([{ name: "PING", topic: "remote.PING" }]);
    expect(handle.status().state).toBe("ready");
  });

  test("getSetting falls back to manifest settings; setSetting persists per plugin", async () => {
    expect((await proxy("getSetting", "FROM_MANIFEST")).value).toBe("manifest-value");
    expect((await proxy("getSetting", "initSeen")).value).toBe("m1");
    expect((await proxy("getSetting", "absent")).value).toBeNull();
    await proxy("setSetting", "color", { hue: 120 });
    expect((await proxy("getSetting", "color")).value).toEqual({ hue: 120 });
    const row = host.db
      .query("SELECT value FROM remote_plugin_settings WHERE plugin = 'probe' AND key = 'color'")
      .get() as { value: string };
    expect(JSON.parse(row.value)).toEqual({ hue: 120 });
  });

  test("createMemory / getMemory / updateMemory go to the memory backend", async () => {
    const memory = { roomId: "s1", content: { text: "the sky is green today" }, metadata: { tag: "t" } };
    const id = (await proxy("createMemory", memory, "facts")).value as string;
    expect((await host.memory.get(`remote/probe/${id}`))?.content).toBe("the sky is green today");
    const got = (await proxy("getMemory", id)).value as Record<string, unknown>;
    expect(got).toMatchObject({
      id,
      roomId: "s1",
      metadata: { tag: "t" },
      content: { text: "the sky is green today" },
    });
    expect((await proxy("updateMemory", { id, content: { text: "the sky is blue" } })).value).toBe(true);
    expect((await host.memory.get(`remote/probe/${id}`))?.content).toBe("the sky is blue");
    expect((await host.memory.recall("sky blue", 5))[0]?.key).toBe(`remote/probe/${id}`);
    expect((await proxy("updateMemory", { id: "nope", content: { text: "x" } })).value).toBe(false);
    expect((await proxy("getMemory", "nope")).value).toBeNull();
  });

  test("useModel goes to the configured provider; unsupported types fail clearly", async () => {
    expect((await proxy("useModel", "TEXT_SMALL", { prompt: "2+2?", system: "be brief" })).value).toBe("echo: 2+2?");
    expect(host.provider.requests.at(-1)?.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "2+2?" },
    ]);
    expect(host.provider.requests.at(-1)?.model).toBe("echo-1");
    const failed = await proxy("useModel", "TEXT_EMBEDDING", { text: "x" });
    expect(failed.result.success).toBe(false);
    expect(failed.result.error).toContain("TEXT_EMBEDDING");
    // elizaOS plugins may pass the text itself: it reaches the host as { text } (the echo provider has no embeddings)
    const plain = await proxy("useModel", "TEXT_EMBEDDING", "x");
    expect(plain.result.error).toContain('provider "echo" serves no embeddings');
    expect((await proxy("useModel", "TEXT_VIDEO", {})).result.error).toContain("TEXT_EMBEDDING");
  });

  test("emitEvent publishes on the bus; the prx.* namespace is refused", async () => {
    await proxy("emitEvent", "NOTE", { a: 1 });
    expect(host.events.at(-1)).toEqual({
      topic: "remote.NOTE",
      payload: { plugin: "probe", name: "NOTE", payload: { a: 1 } },
    });
    const refused = await proxy("emitEvent", "prx.lifecycle.agent_start", {});
    expect(refused.result.error).toContain("reserved");
  });

  test("getService returns the local service; unknown services are null", async () => {
    expect((await proxy("getService", "ECHO")).value).toEqual({});
    expect((await proxy("getService", "NOPE")).value).toBeNull();
  });

  test("composeState returns recent history and provider outputs", async () => {
    const result = await tool("PROXY").execute({ method: "composeStateOf" }, toolContext());
    const state = JSON.parse(result.output) as { text: string; values: { recentMessages: string } };
    expect(state.values.recentMessages).toBe("user: hello there\nassistant: hi");
    expect(state.text).toContain("static context");
    expect(state.text).toContain("added during init");
    host.history.set(
      "long",
      Array.from({ length: REMOTE_COMPOSE_STATE_MAX_MESSAGES + 5 }, (_, i) => ({ role: "user", content: `m${i}` })),
    );
    const long = await tool("PROXY").execute({ method: "composeStateOf" }, toolContext([], "long"));
    const lines = (JSON.parse(long.output) as { values: { recentMessages: string } }).values.recentMessages.split("\n");
    expect(lines.length).toBe(REMOTE_COMPOSE_STATE_MAX_MESSAGES);
    expect(lines.at(-1)).toBe(`user: m${REMOTE_COMPOSE_STATE_MAX_MESSAGES + 4}`);
  });

  test("actionCallback (callback argument and runtime method) reaches the current turn", async () => {
    const sent: string[] = [];
    const result = await tool("CALLBACK").execute({ text: "hi" }, toolContext(sent));
    expect(result).toEqual({ success: true, output: "done", error: null });
    expect(sent).toEqual(["first: hi", "second"]);
    const viaRuntime: string[] = [];
    await tool("PROXY").execute({ method: "actionCallbackSelf" }, toolContext(viaRuntime));
    expect(viaRuntime).toEqual(["via runtime.actionCallback"]);
    const stale = await proxy("actionCallback", "cb_unknown", { text: "x" });
    expect(stale.result.success).toBe(false);
  });

  test("validate runs before the handler", async () => {
    const sent: string[] = [];
    const result = await tool("CALLBACK").execute({ text: "no" }, toolContext(sent));
    expect(result.success).toBe(false);
    expect(result.error).toContain("validate returned false");
    expect(sent).toEqual([]);
  });

  test("providers, models, events and evaluators", async () => {
    expect(await handle.contextProviders({ text: "x", sessionId: "s1" })).toEqual([
      "static context",
      "added during init",
    ]);
    const provider = createRemoteProvider(handle);
    expect(provider.name).toBe("remote:probe");
    const reply = await provider.chat({ model: "whatever", messages: [{ role: "user", content: "hello" }] });
    expect(reply.text).toBe("model saw: hello");
    await handle.deliverEvent("PING", { n: 5 });
    expect(host.bindings.getSetting("probe", "pinged")).toBe(5);
    expect(await handle.runEvaluators({ text: "judge me", sessionId: "s1", response: "ok" })).toEqual({
      ran: ["EVAL"],
      failed: [],
    });
    expect(host.bindings.getSetting("probe", "evaluated")).toBe("judge me");
  });

  test("routes answer through the plugin; unknown routes are 404", async () => {
    const get = await handle.handleRoute("GET", "/items/42", new Request("http://h/plugins/probe/items/42?x=1"));
    expect(get.status).toBe(201);
    expect(await get.json()).toEqual({ id: "42", q: { x: "1" } });
    const post = await handle.handleRoute(
      "POST",
      "/echo",
      new Request("http://h/plugins/probe/echo", {
        method: "POST",
        body: '{"a":1}',
        headers: { "content-type": "application/json" },
      }),
    );
    expect(post.status).toBe(202);
    expect(post.headers.get("x-probe")).toBe("1");
    expect(await post.json()).toEqual({ a: 1 });
    expect((await handle.handleRoute("GET", "/missing", new Request("http://h/x"))).status).toBe(404);
  });

  test("service methods: lazy single start, rpcMethods allowlist", async () => {
    expect(await handle.callService("ECHO", "echo", ["v"])).toBe("v");
    expect(await handle.callService("ECHO", "starts", [])).toBe(1);
    // (bun's expect().rejects does not pump Worker messages while it waits: catch instead)
    expect(String(await handle.callService("ECHO", "secret", []).catch((e) => e))).toContain("not an rpcMethod");
    expect(String(await handle.callService("ECHO", "missing", []).catch((e) => e))).toContain("no such method");
  });

  test("1000 concurrent calls are correlated correctly", async () => {
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => handle.callService("ECHO", "echo", [{ i }])),
    );
    expect(results.every((r, i) => (r as { i: number }).i === i)).toBe(true);
  });

  test("messages at the 4 MiB limit pass; one byte past fails clearly in both directions", async () => {
    const envelope = JSON.stringify({ type: "worker-rpc-result", requestId: 4294967295, ok: true, payload: "" }).length;
    const atLimit = await tool("BIG").execute({ size: REMOTE_MAX_MESSAGE_BYTES - envelope }, toolContext());
    expect(atLimit.success).toBe(true);
    expect(atLimit.output.length).toBe(REMOTE_MAX_MESSAGE_BYTES - envelope);
    const over = await tool("BIG").execute({ size: REMOTE_MAX_MESSAGE_BYTES + 1 }, toolContext());
    expect(over.success).toBe(false);
    expect(over.error).toContain("exceeds");
    const big = "x".repeat(REMOTE_MAX_MESSAGE_BYTES);
    const refused = await handle.callService("ECHO", "echo", [big]).catch((e) => e);
    expect(isPrxError(refused, "PAYLOAD_TOO_LARGE")).toBe(true);
    expect(await handle.callService("ECHO", "echo", ["still fine"])).toBe("still fine");
  });

  test(`${REMOTE_MAX_PENDING_CALLS} calls may be in flight; one more is refused`, async () => {
    const sleeper = tool("SLEEP");
    const inflight = Array.from({ length: REMOTE_MAX_PENDING_CALLS }, () =>
      sleeper.execute({ ms: 300 }, toolContext()),
    );
    const refused = await sleeper.execute({ ms: 1 }, toolContext());
    expect(refused.error).toContain("calls in flight");
    const results = await Promise.all(inflight);
    expect(results.every((r) => r.output === "slept")).toBe(true);
  });

  test("status counts calls and host calls", () => {
    const s = handle.status();
    expect(s.calls).toBeGreaterThan(1000);
    expect(s.hostCalls).toBeGreaterThan(10);
    expect(s.callbacks).toBe(3);
    expect(s.malformed).toBe(0);
    expect(s.transport).toBe(transport);
    expect(s.pid === null).toBe(transport === "worker");
  });
});

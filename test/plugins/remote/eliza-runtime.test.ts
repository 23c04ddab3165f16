/** The worker side of the elizaOS runtime surface, against an in-memory channel that plays the host. */
import { describe, expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import { REMOTE_PLUGIN_LOG_MAX_CHARS } from "../../../src/plugins/remote/limits.ts";
import { bootstrap, type Plugin, type RuntimeProxyApi } from "../../../src/plugins/remote/worker-runtime/index.ts";
import type { Memory } from "../../../src/plugins/remote/worker-runtime/types.ts";
import { UNSUPPORTED_RUNTIME_METHODS, UNSUPPORTED_RUNTIME_PROPERTIES } from "../../../src/plugins/remote/worker-runtime/runtime-guard.ts";
import { createRuntimeLogger, type LogLine } from "../../../src/plugins/remote/worker-runtime/runtime-logger.ts";
import { memoryChannel } from "./helpers.ts";

type Channel = ReturnType<typeof memoryChannel>;

async function started(plugin: Partial<Plugin> = {}, options: Parameters<typeof bootstrap>[1] = {}) {
  const ch = memoryChannel();
  let runtime: RuntimeProxyApi | undefined;
  const init = plugin.init;
  await bootstrap(
    { name: "p", ...plugin, init: async (config, rt) => ((runtime = rt), await init?.(config, rt)) },
    { channel: ch.channel, ...options },
  );
  return { ch, runtime: runtime! };
}

/** Answer the next host-rpc of `method` as the host would. */
async function answer(ch: Channel, method: string, reply: { ok: true; payload: unknown } | { ok: false; message: string; code?: string }) {
  const call = await ch.next((m) => m.type === "host-rpc" && m.method === method && !("answered" in m));
  (call as Record<string, unknown>).answered = true;
  const error = reply.ok ? undefined : { name: "PrxError", message: reply.message, code: reply.code };
  ch.deliver({ type: "host-rpc-result", requestId: call.requestId, ok: reply.ok, ...(reply.ok ? { payload: reply.payload } : { error }) });
  return call;
}

describe("runtime.logger", () => {
  const capture = (threshold: "info" | "warn") => {
    const lines: LogLine[] = [];
    return { lines, logger: createRuntimeLogger((l) => void lines.push(l), threshold, { plugin: "p" }) };
  };

  test("pino-style calls become a message and fields; lines below the host's level are not sent", () => {
    const { lines, logger } = capture("warn");
    logger.info("dropped");
    logger.debug({ a: 1 }, "dropped too");
    logger.warn({ roomId: "r" }, "kept", 2);
    logger.child({ part: "c" }).error(new Error("boom"));
    logger.fatal("fatal", "line");
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ["warn", "kept 2"],
      ["error", "boom"],
      ["error", "fatal line"],
    ]);
    expect(lines[0]!.fields).toEqual({ plugin: "p", roomId: "r" });
    expect(lines[1]!.fields).toMatchObject({ plugin: "p", part: "c", error: { name: "Error", message: "boom" } });
  });

  test(`a message of ${REMOTE_PLUGIN_LOG_MAX_CHARS} chars is sent whole; one more char is cut, saying so`, () => {
    const { lines, logger } = capture("info");
    logger.info("x".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS));
    logger.info("y".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS + 1));
    expect(lines[0]!.message).toBe("x".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS));
    expect(lines[1]!.message).toBe(`${"y".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS)}... [1 chars cut]`);
  });

  test(`fields whose JSON is ${REMOTE_PLUGIN_LOG_MAX_CHARS} chars are kept; one more char replaces them by a cut text`, () => {
    const { lines, logger } = createCaptureWithoutBindings();
    const overhead = JSON.stringify({ v: "" }).length;
    logger.info({ v: "a".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS - overhead) }, "at");
    logger.info({ v: "a".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS - overhead + 1) }, "past");
    expect(lines[0]!.fields).toEqual({ v: "a".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS - overhead) });
    expect(Object.keys(lines[1]!.fields!)).toEqual(["truncated"]);
    expect(String(lines[1]!.fields!.truncated)).toEndWith("... [1 chars cut]");
  });

  test("circular, BigInt and function values do not break a log call", () => {
    const { lines, logger } = createCaptureWithoutBindings();
    const loop: Record<string, unknown> = { n: 10n, f: function named() {} };
    loop.self = loop;
    logger.info(loop, "odd fields");
    expect(lines[0]!.fields).toMatchObject({ n: "10", f: "[function named]", self: { self: "[circular]" } });
  });
});

function createCaptureWithoutBindings() {
  const lines: LogLine[] = [];
  return { lines, logger: createRuntimeLogger((l) => void lines.push(l), "info") };
}

describe("members prx does not honour", () => {
  test("every unsupported method fails when called, with PLUGIN_UNSUPPORTED naming it; properties fail when read", async () => {
    const { runtime } = await started();
    const rt = runtime as unknown as Record<string, unknown>;
    for (const name of UNSUPPORTED_RUNTIME_METHODS.keys()) {
      expect(typeof rt[name]).toBe("function");
      const error = (() => {
        try {
          (rt[name] as () => unknown)();
        } catch (e) {
          return e;
        }
      })();
      expect(isPrxError(error, "PLUGIN_UNSUPPORTED")).toBe(true);
      expect((error as Error).message).toStartWith(`runtime.${name} is not supported in remote mode: `);
    }
    for (const name of UNSUPPORTED_RUNTIME_PROPERTIES.keys()) {
      expect(() => rt[name]).toThrow(`runtime.${name} is not supported in remote mode: `);
    }
  });

  test("assignment fails; other names read as undefined; the runtime can be awaited and serialized", async () => {
    const { runtime } = await started();
    expect(() => ((runtime as unknown as Record<string, unknown>).agentId = "x")).toThrow("cannot be assigned");
    expect((runtime as unknown as Record<string, unknown>).somethingElse).toBeUndefined();
    expect(await Promise.resolve(runtime)).toBe(runtime);
    expect(JSON.parse(JSON.stringify(runtime)).pluginName).toBe("p");
  });
});

describe("services without static rpcMethods", () => {
  class Quiet {
    static serviceType = "quiet";
    static starts = 0;
    static async start() {
      Quiet.starts += 1;
      return new Quiet();
    }
    hello() {
      return "hi";
    }
  }

  test("start with the plugin after init, are announced with an empty allowlist and a debug line", async () => {
    const order: string[] = [];
    const { ch, runtime } = await started({ services: [Quiet], init: async () => void order.push(`init, starts=${Quiet.starts}`) });
    expect(order).toEqual(["init, starts=0"]);
    expect(Quiet.starts).toBe(1);
    const descriptor = ch.sent[0]!.descriptor as { services: unknown[] };
    expect(descriptor.services).toEqual([{ serviceType: "quiet", rpcMethods: [], methods: {} }]);
    const types = ch.sent.map((m) => m.type);
    expect(types.indexOf("service-started")).toBeLessThan(types.indexOf("init-complete"));
    const debug = ch.sent.find((m) => m.type === "log" && m.level === "debug")!;
    expect(debug.message).toContain("service quiet declares no static rpcMethods: the host can call none of its methods");
    const instance = runtime.getService<Quiet>("quiet");
    expect(instance).toBeInstanceOf(Quiet);
    expect(runtime.getService("quiet")).toBe(instance);
    ch.deliver({ type: "worker-rpc", requestId: 1, surface: "service", target: "service:quiet.hello", args: { args: [] } });
    expect((await ch.next((m) => m.type === "worker-rpc-result")).error).toMatchObject({ code: "UNKNOWN_TARGET" });
  });

  test("a service that fails to start fails the plugin's start, naming it", async () => {
    const ch = memoryChannel();
    const broken = { serviceType: "broken", start: async () => Promise.reject(new Error("no disk")) };
    await expect(bootstrap({ name: "p", services: [broken] }, { channel: ch.channel })).rejects.toThrow("service broken failed to start: no disk");
    expect(ch.sent.at(-1)!.type).toBe("init-failed");
  });

  test("rpcMethods that is not an array is refused before announcing", async () => {
    const ch = memoryChannel();
    const odd = { serviceType: "odd", rpcMethods: "hello" as unknown as string[], start: async () => ({}) };
    await expect(bootstrap({ name: "p", services: [odd] }, { channel: ch.channel })).rejects.toThrow("static rpcMethods must be an array");
  });

  test("a service with rpcMethods still starts on first use: getService gives a Promise, then the live instance", async () => {
    class Lazy {
      static serviceType = "lazy";
      static rpcMethods = ["x"];
      static async start() {
        return new Lazy();
      }
    }
    const { ch, runtime } = await started({ services: [Lazy] });
    expect(ch.sent.some((m) => m.type === "service-started")).toBe(false);
    const first = runtime.getService<Lazy>("lazy");
    expect(first).toBeInstanceOf(Promise);
    const instance = await first;
    expect(runtime.getService("lazy")).toBe(instance);
    expect(ch.sent.filter((m) => m.type === "service-started")).toEqual([{ type: "service-started", serviceType: "lazy" }]);
  });
});

describe("getSetting / setSetting", () => {
  test("synchronous: own writes, else persisted values, else the plugin's settings; 'true'/'false' are booleans", async () => {
    const { runtime } = await started({}, { initConfig: { A: "manifest", FLAG: "false", B: "manifest" }, persistedSettings: { B: "stored", N: 3 } });
    expect([runtime.getSetting("A"), runtime.getSetting("B"), runtime.getSetting("N")]).toEqual(["manifest", "stored", 3]);
    expect(runtime.getSetting("FLAG")).toBe(false);
    expect(runtime.getSetting("missing")).toBeNull();
  });

  test("a write takes effect at once and is undone when the host cannot persist it", async () => {
    const { ch, runtime } = await started({}, { persistedSettings: { K: "old" } });
    const kept = runtime.setSetting("K", "new");
    expect(runtime.getSetting("K")).toBe("new");
    await answer(ch, "setSetting", { ok: true, payload: null });
    await kept;
    const refused = runtime.setSetting("K", "too big");
    expect(runtime.getSetting("K")).toBe("too big");
    await answer(ch, "setSetting", { ok: false, message: "too large", code: "LIMIT_EXCEEDED" });
    const error = await refused.catch((e: unknown) => e);
    expect(isPrxError(error, "LIMIT_EXCEEDED")).toBe(true);
    expect(runtime.getSetting("K")).toBe("new");
  });
});

describe("arguments on the wire", () => {
  test("composeState: the 1.x signature and the { providers } form", async () => {
    const { ch, runtime } = await started();
    const message = { roomId: "s", content: { text: "x" } };
    const pending = [
      runtime.composeState(message, ["A"], true, true),
      runtime.composeState(message, { providers: ["B"] }),
      runtime.composeState(message),
    ];
    const calls = ch.sent.filter((m) => m.type === "host-rpc" && m.method === "composeState").map((m) => m.args);
    expect(calls).toEqual([
      { message, includeList: ["A"], onlyInclude: true, skipCache: true },
      { message, includeList: ["B"], onlyInclude: true, skipCache: false },
      { message, includeList: null, onlyInclude: false, skipCache: false },
    ]);
    // answered, so no call is left to time out (and fail whatever test runs 30 s later)
    const state = { values: {}, data: {}, text: "" };
    for (let i = 0; i < pending.length; i++) await answer(ch, "composeState", { ok: true, payload: state });
    expect(await Promise.all(pending)).toEqual([state, state, state]);
  });

  test("emitEvent: one call per name, without the sender's runtime or functions", async () => {
    const { ch, runtime } = await started();
    const done = runtime.emitEvent(["A", "B"], { runtime, n: 1, callback: () => {} });
    await answer(ch, "emitEvent", { ok: true, payload: null });
    await answer(ch, "emitEvent", { ok: true, payload: null });
    await done;
    const calls = ch.sent.filter((m) => m.type === "host-rpc" && m.method === "emitEvent").map((m) => m.args);
    expect(calls).toEqual([
      { name: "A", payload: { n: 1 } },
      { name: "B", payload: { n: 1 } },
    ]);
  });
});

describe("addEmbeddingToMemory", () => {
  test("the memory gets the embedding of its text, in place; with no host embeddings it is kept as given", async () => {
    const { ch, runtime } = await started();
    const memory: Memory = { id: "m1", content: { text: "seven floating islands" } };
    const embedded = runtime.addEmbeddingToMemory(memory);
    const call = await answer(ch, "useModel", { ok: true, payload: [0.6, 0.8] });
    expect(call.args).toEqual({ modelType: "TEXT_EMBEDDING", params: { text: "seven floating islands" } });
    expect(await embedded).toBe(memory);
    expect(memory).toEqual({ id: "m1", content: { text: "seven floating islands" }, embedding: [0.6, 0.8] });

    // already embedded, or no text: no call
    expect(await runtime.addEmbeddingToMemory(memory)).toBe(memory);
    expect(await runtime.addEmbeddingToMemory({ content: {} })).toEqual({ content: {} });
    expect(ch.sent.filter((m) => m.type === "host-rpc" && m.method === "useModel")).toHaveLength(1);

    const plain = { content: { text: "no model" } };
    const kept = runtime.addEmbeddingToMemory(plain);
    await answer(ch, "useModel", { ok: false, message: "provider serves no embeddings", code: "PLUGIN_UNSUPPORTED" });
    expect(await kept).toEqual({ content: { text: "no model" } });

    const failing = runtime.addEmbeddingToMemory({ content: { text: "provider down" } });
    await answer(ch, "useModel", { ok: false, message: "upstream 500", code: "PROVIDER_ERROR" });
    expect(String(await failing.catch((e: Error) => e))).toContain("upstream 500");
  });
});

import { describe, expect, test } from "bun:test";
import { bootstrap, type Plugin } from "../../../src/plugins/remote/worker-runtime/index.ts";
import { memoryChannel } from "./helpers.ts";

function plugin(extra: Partial<Plugin> = {}): Plugin {
  return {
    name: "p",
    actions: [{ name: "A", handler: async () => "a", validate: async () => true }],
    providers: [{ name: "P", get: async () => ({ text: "p" }) }],
    services: [
      class S {
        static serviceType = "S";
        static rpcMethods = ["hello"];
        static starts = 0;
        static async start() {
          S.starts += 1;
          return new S();
        }
        hello(name: string) {
          return `hello ${name} (${S.starts})`;
        }
        hidden() {
          return "no";
        }
      },
    ],
    models: { TEXT_LARGE: async () => "m" },
    events: { E: [async () => {}, async () => {}] },
    evaluators: [{ name: "V", handler: async () => null }],
    routes: [{ type: "GET", path: "/x", handler: () => ({ ok: true }) }],
    ...extra,
  };
}

async function rpc(
  ch: ReturnType<typeof memoryChannel>,
  requestId: number,
  surface: string,
  target: string,
  args: unknown = {},
) {
  ch.deliver({ type: "worker-rpc", requestId, surface, target, args });
  return ch.next((m) => m.type === "worker-rpc-result" && m.requestId === requestId);
}

describe("worker bootstrap", () => {
  test("announce, then the init-time delta, then init-complete", async () => {
    const ch = memoryChannel();
    const extra = { name: "P2", get: async () => ({ text: "late" }) };
    const p = plugin({
      init: async () => {
        p.providers!.push(extra);
        p.events!.E!.push(async () => {});
        p.models!.TEXT_SMALL = async () => "s";
      },
    });
    await bootstrap(p, { channel: ch.channel });
    expect(ch.sent.map((m) => m.type)).toEqual(["worker-announce-plugin", "worker-announce-dynamic", "init-complete"]);
    const dynamic = ch.sent[1]!.descriptor as Record<string, unknown>;
    // only the delta: nothing announced before reappears
    expect(Object.keys(dynamic).sort()).toEqual(["events", "models", "name", "providers"]);
    expect((dynamic.providers as Array<{ name: string }>).map((x) => x.name)).toEqual(["P2"]);
    expect(dynamic.models).toEqual({ TEXT_SMALL: { rpc: true, id: "model:TEXT_SMALL" } });
    expect(dynamic.events).toEqual({ E: [{ rpc: true, id: "event:E#2" }] });
  });

  test("no delta message when init adds nothing; a replacement is logged, not announced", async () => {
    const ch = memoryChannel();
    const p = plugin({ init: async () => void (p.models!.TEXT_LARGE = async () => "replaced") });
    await bootstrap(p, { channel: ch.channel });
    expect(ch.sent.map((m) => m.type)).toEqual(["worker-announce-plugin", "log", "init-complete"]);
    expect(String(ch.sent[1]!.message)).toContain("replaced model TEXT_LARGE");
  });

  test("ids are stable and independent of declaration order", async () => {
    const a = memoryChannel();
    const b = memoryChannel();
    const p1 = plugin();
    const p2 = plugin({ actions: [...p1.actions!].reverse(), routes: [...p1.routes!] });
    await bootstrap(p1, { channel: a.channel });
    await bootstrap(p2, { channel: b.channel });
    const ids = (m: Record<string, unknown>): string[] =>
      [...JSON.stringify(m.descriptor).match(/"id":"[^"]+"/g)!].sort();
    expect(ids(a.sent[0]!)).toEqual(ids(b.sent[0]!));
    expect(ids(a.sent[0]!)).toEqual(
      [
        "action:A",
        "action:A.validate",
        "provider:P",
        "service:S.hello",
        "model:TEXT_LARGE",
        "event:E#0",
        "event:E#1",
        "evaluator:V",
        "route:GET /x",
      ]
        .map((id) => `"id":"${id}"`)
        .sort(),
    );
  });

  test("unknown target and wrong surface get typed error replies", async () => {
    const ch = memoryChannel();
    await bootstrap(plugin(), { channel: ch.channel });
    const unknown = await rpc(ch, 1, "action", "action:NOPE");
    expect(unknown.ok).toBe(false);
    expect((unknown.error as { code: string }).code).toBe("UNKNOWN_TARGET");
    const mismatch = await rpc(ch, 2, "provider", "action:A");
    expect((mismatch.error as { code: string }).code).toBe("SURFACE_MISMATCH");
  });

  test("services start lazily, once, and only rpcMethods are reachable", async () => {
    const ch = memoryChannel();
    await bootstrap(plugin(), { channel: ch.channel });
    expect(ch.sent.some((m) => m.type === "host-rpc")).toBe(false);
    const first = await rpc(ch, 1, "service", "service:S.hello", { args: ["a"] });
    const second = await rpc(ch, 2, "service", "service:S.hello", { args: ["b"] });
    expect(first.payload).toBe("hello a (1)");
    expect(second.payload).toBe("hello b (1)");
    const hidden = await rpc(ch, 3, "service", "service:S.hidden", { args: [] });
    expect((hidden.error as { code: string }).code).toBe("UNKNOWN_TARGET");
  });

  test("init failure sends init-failed with name, message and stack, and rejects", async () => {
    const ch = memoryChannel();
    const p = plugin({ init: async () => Promise.reject(new TypeError("bad config")) });
    await expect(bootstrap(p, { channel: ch.channel })).rejects.toThrow("bad config");
    expect(ch.sent.map((m) => m.type)).toEqual(["worker-announce-plugin", "init-failed"]);
    const error = ch.sent[1]!.error as { name: string; message: string; stack: string };
    expect(error.name).toBe("TypeError");
    expect(error.message).toBe("bad config");
    expect(error.stack).toContain("bad config");
  });

  test("a plugin without a name fails before announcing", async () => {
    const ch = memoryChannel();
    await expect(bootstrap({ name: "" } as Plugin, { channel: ch.channel })).rejects.toThrow("non-empty name");
    expect(ch.sent.map((m) => m.type)).toEqual(["init-failed"]);
  });

  test("cancel aborts the call, replies CANCELLED once, and the late result is dropped", async () => {
    const ch = memoryChannel();
    let release: (v: string) => void = () => {};
    let signal: AbortSignal | undefined;
    const p = plugin({
      actions: [
        {
          name: "SLOW",
          handler: (_r, _m, _s, options) => {
            signal = options?.abortSignal as AbortSignal;
            return new Promise<string>((r) => (release = r));
          },
        },
      ],
    });
    await bootstrap(p, { channel: ch.channel });
    ch.deliver({
      type: "worker-rpc",
      requestId: 7,
      surface: "action",
      target: "action:SLOW",
      args: { message: { content: {} } },
    });
    await Bun.sleep(1);
    ch.deliver({ type: "cancel", requestId: 7, reason: "timeout" });
    const reply = await ch.next((m) => m.type === "worker-rpc-result" && m.requestId === 7);
    expect((reply.error as { code: string }).code).toBe("CANCELLED");
    expect(signal?.aborted).toBe(true);
    release("late");
    await Bun.sleep(1);
    expect(ch.sent.filter((m) => m.type === "worker-rpc-result" && m.requestId === 7)).toHaveLength(1);
  });

  test("runtime.registerEvent throws and tells the author to declare Plugin.events", async () => {
    const ch = memoryChannel();
    const p = plugin({ actions: [{ name: "R", handler: (runtime) => runtime.registerEvent("X", () => {}) }] });
    await bootstrap(p, { channel: ch.channel });
    const reply = await rpc(ch, 1, "action", "action:R", { message: { content: {} } });
    expect((reply.error as { message: string }).message).toContain("Plugin.events");
  });

  test("the runtime proxy has exactly the documented members", async () => {
    const ch = memoryChannel();
    let keys: string[] = [];
    await bootstrap(plugin({ init: (_c, runtime) => void (keys = Object.keys(runtime)) }), { channel: ch.channel });
    expect(keys.sort()).toEqual(
      [
        "agentId",
        "pluginName",
        "character",
        "logger",
        "actions",
        "providers",
        "evaluators",
        "getService",
        "useModel",
        "getModel",
        "getMemory",
        "getMemoryById",
        "createMemory",
        "updateMemory",
        "getMemories",
        "searchMemories",
        "addEmbeddingToMemory",
        "emitEvent",
        "getSetting",
        "setSetting",
        "getCache",
        "setCache",
        "deleteCache",
        "getRoom",
        "getRoomsByIds",
        "getEntityById",
        "getRelationships",
        "getConversationLength",
        "getTasks",
        "getTasksByName",
        "getTask",
        "composeState",
        "actionCallback",
        "log",
        "registerEvent",
      ].sort(),
    );
  });

  test("messages that are not protocol messages are counted and reported to the host", async () => {
    const ch = memoryChannel();
    await bootstrap(plugin(), { channel: ch.channel });
    ch.deliver("garbage");
    ch.deliver({ type: "nonsense" });
    const logs = ch.sent.filter((m) => m.type === "log");
    expect(logs).toHaveLength(2);
    expect((logs[1]!.fields as { count: number }).count).toBe(2);
    // dispatch still works afterwards
    expect((await rpc(ch, 1, "model", "model:TEXT_LARGE", { params: {} })).payload).toBe("m");
  });
});

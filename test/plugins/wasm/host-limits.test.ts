import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HostContext } from "../../../src/plugins/wasm/host/context.ts";
import { KvStore } from "../../../src/plugins/wasm/host/kv.ts";
import { truncateLog } from "../../../src/plugins/wasm/host/log.ts";
import { httpRequest } from "../../../src/plugins/wasm/host/http-outbound.ts";
import { websocketImports } from "../../../src/plugins/wasm/host/websocket.ts";
import { MAX_KV_KEY_BYTES, MAX_LOG_MESSAGE_CHARS, MAX_WEBSOCKETS_PER_PLUGIN } from "../../../src/plugins/wasm/index.ts";
import { type TestHost, makeHost, removeDir } from "./helpers.ts";
import { HostError } from "../../../src/plugins/wasm/host/errors.ts";
import { WebSocketTable } from "../../../src/plugins/wasm/host/socket-table.ts";

let t: TestHost;
let kv: KvStore;
beforeAll(() => {
  t = makeHost();
  kv = new KvStore(t.host.storage.path, "limits", 1);
});
afterAll(() => {
  kv.close();
  t.close();
  removeDir(t.root);
});

describe("host function limits", () => {
  test(`kv keys of ${MAX_KV_KEY_BYTES} bytes are accepted, one more byte is an error`, () => {
    const key = "k".repeat(MAX_KV_KEY_BYTES);
    kv.set(key, new Uint8Array([1]));
    expect(kv.get(key)).toEqual(new Uint8Array([1]));
    expect(() => kv.set(key + "k", new Uint8Array([1]))).toThrow(HostError);
    expect(() => kv.set("", new Uint8Array([1]))).toThrow("must not be empty");
  });

  test("kv list-keys filters by prefix (LIKE wildcards are literal) and delete reports whether a key existed", () => {
    kv.set("a%1", new Uint8Array([1]));
    kv.set("ab", new Uint8Array([2]));
    expect(kv.listKeys("a%")).toEqual(["a%1"]);
    expect(kv.delete("ab")).toBe(true);
    expect(kv.delete("ab")).toBe(false);
  });

  test(`log messages up to ${MAX_LOG_MESSAGE_CHARS} characters pass whole, longer ones are truncated`, () => {
    const exact = "x".repeat(MAX_LOG_MESSAGE_CHARS);
    expect(truncateLog(exact)).toBe(exact);
    expect(truncateLog(exact + "y")).toBe(`${exact}…(truncated)`);
  });

  test(`a plugin holds ${MAX_WEBSOCKETS_PER_PLUGIN} open websockets; one more is an error naming the limit`, async () => {
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req, srv) => (srv.upgrade(req) ? undefined : new Response("no", { status: 400 })),
      websocket: { message() {} },
    });
    const sockets = new WebSocketTable();
    const ctx = {
      plugin: {
        name: "ws-limit",
        httpAllowlist: [`http://127.0.0.1:${server.port}/*`],
        maxHttpRequestsPerCall: MAX_WEBSOCKETS_PER_PLUGIN + 2,
      },
      granted: new Set(["websocket"]),
      call: { httpRequests: 0 },
      sockets,
    } as unknown as HostContext;
    const ws = websocketImports(ctx);
    const url = `ws://127.0.0.1:${server.port}/`;
    try {
      for (let i = 0; i < MAX_WEBSOCKETS_PER_PLUGIN; i++) await ws.connect(url, []);
      expect(sockets.open.size).toBe(MAX_WEBSOCKETS_PER_PLUGIN);
      const error = await ws.connect(url, []).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(HostError);
      expect(error!.message).toContain(`already has ${MAX_WEBSOCKETS_PER_PLUGIN} open websockets`);
      expect(sockets.open.size).toBe(MAX_WEBSOCKETS_PER_PLUGIN);
      // connects in flight count too: MAX + 1 at once (in a new call) leave exactly one refused
      sockets.closeAll();
      ctx.call.httpRequests = 0;
      const results = await Promise.allSettled(
        Array.from({ length: MAX_WEBSOCKETS_PER_PLUGIN + 1 }, () => ws.connect(url, [])),
      );
      expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
      expect(sockets.open.size).toBe(MAX_WEBSOCKETS_PER_PLUGIN);
      expect(sockets.connecting).toBe(0);
    } finally {
      sockets.closeAll();
      server.stop(true);
    }
  });

  test("a plugin's outbound HTTP request is cut at its timeout with an error naming it", async () => {
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (req) => {
        await Bun.sleep(Number(new URL(req.url).searchParams.get("delay")));
        return new Response("done");
      },
    });
    const ctx = {
      plugin: { name: "http-limit", httpAllowlist: [`http://127.0.0.1:${server.port}/*`], maxHttpRequestsPerCall: 10 },
      granted: new Set(["http-outbound"]),
      call: { httpRequests: 0 },
    } as unknown as HostContext;
    const url = (delay: number) => `http://127.0.0.1:${server.port}/?delay=${delay}`;
    try {
      const fast = await httpRequest(ctx, "GET", url(10), [], undefined, 500);
      expect(new TextDecoder().decode(fast.body)).toBe("done");
      const slow = await httpRequest(ctx, "GET", url(400), [], undefined, 100).catch((e: Error) => e);
      expect(slow).toBeInstanceOf(HostError);
      expect((slow as Error).message).toContain("timed out after 100 ms");
    } finally {
      server.stop(true);
    }
  });
});

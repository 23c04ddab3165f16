import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HostContext } from "../../../src/plugins/wasm/host/context.ts";
import { KvStore } from "../../../src/plugins/wasm/host/kv.ts";
import { type TestHost, makeHost, removeDir } from "./helpers.ts";
import { WebSocketTable } from "../../../src/plugins/wasm/host/socket-table.ts";

/** wasi:http/outgoing-handler as a component sees it: the preview2-shim handler behind prx's grant and allowlist. */
let t: TestHost;
let kv: KvStore;
const logs: string[] = [];

function context(granted: string[], allowlist: string[]): HostContext {
  return {
    plugin: {
      name: "wasi-http",
      kind: "wasm-component",
      entryPath: "",
      capabilities: [{ type: "tool", name: "t" }],
      granted,
      config: {},
      httpAllowlist: allowlist,
      maxMemoryMb: 16,
      maxHttpRequestsPerCall: 4,
      maxKvStorageMb: 1,
      maxFuel: null,
    },
    granted: new Set(granted),
    capIndex: 0,
    capability: { type: "tool", name: "t" },
    canSubscribe: false,
    call: { httpRequests: 0 },
    kv,
    sockets: new WebSocketTable(),
    log: (_level, message) => logs.push(message),
    publish: () => {},
    rpc: () => Promise.reject(new Error("no rpc")),
  };
}

beforeAll(() => {
  t = makeHost();
  kv = new KvStore(t.host.storage.path, "wasi-http", 1);
});
afterAll(() => {
  kv.close();
  t.close();
  removeDir(t.root);
});

async function handle(ctx: HostContext, authority: string): Promise<unknown> {
  const { wasiImports } = await import("../../../src/plugins/wasm/host/wasi.ts");
  const imports = wasiImports(ctx) as Record<string, Record<string, any>>;
  const types = imports["wasi:http/types"]!;
  const request = new types.OutgoingRequest(new types.Fields());
  request.setScheme({ tag: "HTTP" });
  request.setAuthority(authority);
  request.setPathWithQuery("/data");
  try {
    return imports["wasi:http/outgoing-handler"]!.handle(request, undefined);
  } catch (error) {
    return { thrown: error };
  }
}

describe("wasi:http outgoing requests", () => {
  test("without the http-outbound grant they are denied with HTTP-request-denied", async () => {
    expect(await handle(context(["log"], ["http://127.0.0.1:9/*"]), "127.0.0.1:9")).toEqual({
      thrown: { payload: { tag: "HTTP-request-denied" } },
    });
    expect(logs.at(-1)).toContain('"http-outbound" permission');
  });

  test("with the grant, a URL outside http_allowlist is denied and one inside is handed to the shim", async () => {
    const ctx = context(["http-outbound"], ["http://127.0.0.1:9/*"]);
    expect(await handle(ctx, "127.0.0.2:9")).toEqual({ thrown: { payload: { tag: "HTTP-request-denied" } } });
    expect(logs.at(-1)).toContain("http_allowlist");
    const future = await handle(ctx, "127.0.0.1:9");
    expect(future).not.toHaveProperty("thrown");
    expect(ctx.call.httpRequests).toBe(1);
  });
});

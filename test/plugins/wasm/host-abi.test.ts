import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import { readCapped } from "../../../src/plugins/wasm/host/http-outbound.ts";
import { MAX_HTTP_RESPONSE_BYTES, allowlistMatches, wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { type TestHost, admitted, makeHost, removeDir } from "./helpers.ts";

let t: TestHost;
let server: ReturnType<typeof Bun.serve>;
let base: string;
let hits = 0;

beforeAll(() => {
  t = makeHost();
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      hits++;
      const url = new URL(req.url);
      if (url.pathname === "/redirect") return Response.redirect("http://example.invalid/", 302);
      return new Response(`hello from ${url.pathname}`);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => {
  server.stop(true);
  t.close();
  removeDir(t.root);
});

describe("http-outbound", () => {
  const fetchCap = { type: "tool" as const, name: "fetch" };

  test("an allowlisted URL is fetched; others are refused naming the allowlist", async () => {
    const inst = await wasmLoader.load(admitted("http-tool", { httpAllowlist: [`${base}/ok*`] }), t.host);
    expect(await inst.invoke(fetchCap, "execute", [`${base}/ok/1`])).toEqual({
      success: true,
      output: "hello from /ok/1",
      error: undefined,
    });
    const before = hits;
    const denied = (await inst.invoke(fetchCap, "execute", [`${base}/secret`])) as { success: boolean; error: string };
    expect(denied.success).toBe(false);
    expect(denied.error).toContain("http_allowlist");
    expect(hits).toBe(before);
    await inst.release();
  });

  test("without the http-outbound grant the call returns an error naming the permission (the plugin still loads)", async () => {
    const inst = await wasmLoader.load(admitted("http-tool", { granted: new Set(["log", "config", "kv"]) }), t.host);
    const result = (await inst.invoke(fetchCap, "execute", [`${base}/ok`])) as { success: boolean; error: string };
    expect(result.success).toBe(false);
    expect(result.error).toContain('"http-outbound" permission');
    await inst.release();
  });

  test("max_http_requests_per_call: 1 allowed at a limit of 1, refused at a limit of 0", async () => {
    const one = await wasmLoader.load(admitted("http-tool", { resources: { maxHttpRequestsPerCall: 1 } }), t.host);
    expect(await one.invoke(fetchCap, "execute", [`${base}/a`])).toMatchObject({ success: true });
    expect(await one.invoke(fetchCap, "execute", [`${base}/b`])).toMatchObject({ success: true });
    await one.release();
    const zero = await wasmLoader.load(admitted("http-tool", { resources: { maxHttpRequestsPerCall: 0 } }), t.host);
    const result = (await zero.invoke(fetchCap, "execute", [`${base}/a`])) as { success: boolean; error: string };
    expect(result.error).toContain("max_http_requests_per_call (0)");
    await zero.release();
  });

  test("redirects are not followed (they could leave the allowlist)", async () => {
    const inst = await wasmLoader.load(admitted("http-tool"), t.host);
    expect(await inst.invoke(fetchCap, "execute", [`${base}/redirect`])).toMatchObject({ success: true, output: "" });
    await inst.release();
  });

  test("allowlist rules: trailing * is a prefix, bare host matches the host, anything else is exact", () => {
    const u = new URL("https://api.example.com/v1/chat?x=1");
    expect(allowlistMatches(u, ["https://api.example.com/v1/*"])).toBe(true);
    expect(allowlistMatches(u, ["https://api.example.com/v2/*"])).toBe(false);
    expect(allowlistMatches(u, ["api.example.com"])).toBe(true);
    expect(allowlistMatches(u, ["https://api.example.com/v1/chat?x=1"])).toBe(true);
    expect(allowlistMatches(u, ["https://api.example.com/v1/chat"])).toBe(false);
    expect(allowlistMatches(u, [])).toBe(false);
  });

  test("response bodies of exactly MAX_HTTP_RESPONSE_BYTES pass, one more byte fails", async () => {
    const exact = await readCapped(new Response(new Uint8Array(MAX_HTTP_RESPONSE_BYTES)), MAX_HTTP_RESPONSE_BYTES, "t");
    expect(exact.byteLength).toBe(MAX_HTTP_RESPONSE_BYTES);
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(MAX_HTTP_RESPONSE_BYTES));
        c.enqueue(new Uint8Array(1));
        c.close();
      },
    });
    await expect(readCapped(new Response(stream), MAX_HTTP_RESPONSE_BYTES, "t")).rejects.toThrow("byte cap");
  });
});

describe("kv", () => {
  const cap = { type: "tool" as const, name: "remember" };

  test("values persist across release and reload of the plugin", async () => {
    const a = await wasmLoader.load(admitted("kv-tool"), t.host);
    expect(await a.invoke(cap, "execute", ["first"])).toMatchObject({ output: "" });
    expect(await a.invoke(cap, "execute", ["second"])).toMatchObject({ output: "first" });
    await a.release();
    const b = await wasmLoader.load(admitted("kv-tool"), t.host);
    expect(await b.invoke(cap, "execute", ["third"])).toMatchObject({ output: "second" });
    await b.release();
  });

  test("values survive a process restart (a new process on the same workspace)", async () => {
    const script = `
      import { wasmLoader } from "${import.meta.dir}/../../../src/plugins/wasm/index.ts";
      import { admitted, makeHost } from "${import.meta.dir}/helpers.ts";
      const t = makeHost({ root: ${JSON.stringify(t.root)} });
      const inst = await wasmLoader.load(admitted("kv-tool"), t.host);
      const out = await inst.invoke({ type: "tool", name: "remember" }, "execute", ["fourth"]);
      await inst.release();
      console.log(out.output);`;
    const proc = Bun.spawnSync([process.execPath, "-e", script]);
    expect(proc.stdout.toString().trim()).toBe("third");
  });

  test("one plugin's capability instances share its kv; another plugin does not see it", async () => {
    const two = await wasmLoader.load(
      admitted("kv-tool", { name: "kv-shared", capabilities: [cap, { type: "tool", name: "remember2" }] }),
      t.host,
    );
    await two.invoke(cap, "execute", ["from-one"]);
    expect(await two.invoke({ type: "tool", name: "remember2" }, "execute", ["from-two"])).toMatchObject({
      output: "from-one",
    });
    await two.release();
    const other = await wasmLoader.load(admitted("kv-tool", { name: "kv-other" }), t.host);
    expect(await other.invoke(cap, "execute", ["x"])).toMatchObject({ output: "" });
    await other.release();
  });

  test("max_kv_storage_mb: a value filling the quota exactly is stored, one byte more is an error result", async () => {
    const quota = 1024 * 1024;
    const inst = await wasmLoader.load(
      admitted("kv-tool", { name: "kv-quota", resources: { maxKvStorageMb: 1 } }),
      t.host,
    );
    const atLimit = "q".repeat(quota - "last".length);
    expect(await inst.invoke(cap, "execute", [atLimit])).toMatchObject({ success: true });
    const over = (await inst.invoke(cap, "execute", [atLimit + "q"])) as { success: boolean; error: string };
    expect(over.success).toBe(false);
    expect(over.error).toContain("kv quota exceeded");
    await inst.release();
  });
});

describe("memory and events", () => {
  const cap = { type: "tool" as const, name: "note" };

  test("memory.store reaches the live backend and events.publish reaches the bus", async () => {
    const memory = new SqliteMemory(() => t.storage.memory);
    const host = makeHost({ root: t.root, memory });
    const inst = await wasmLoader.load(admitted("notes-tool"), host.host);
    const result = (await inst.invoke(cap, "execute", ["buy oat milk"])) as { success: boolean; output: string };
    expect(result.success).toBe(true);
    expect(result.output).toStartWith("plugin:notes-tool:");
    expect((await memory.get(result.output))?.content).toBe("buy oat milk");
    expect(host.events).toEqual([{ topic: "notes.stored", payload: result.output }]);
    await inst.release();
  });

  test("ungranted memory is an error result naming the permission", async () => {
    const inst = await wasmLoader.load(admitted("notes-tool", { granted: new Set(["log", "config", "kv"]) }), t.host);
    const result = (await inst.invoke(cap, "execute", ["x"])) as { success: boolean; error: string };
    expect(result.success).toBe(false);
    expect(result.error).toContain('"memory" permission');
    await inst.release();
  });

  test("with memory backend none, memory.store is an error result", async () => {
    const inst = await wasmLoader.load(admitted("notes-tool"), t.host);
    const result = (await inst.invoke(cap, "execute", ["x"])) as { success: boolean; error: string };
    expect(result.error).toContain("no memory backend");
    await inst.release();
  });
});

describe("websocket", () => {
  const cap = { type: "tool" as const, name: "ws_ping" };

  test("an allowlisted ws URL connects, sends, receives and closes; without the grant it is an error result", async () => {
    const ws = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req, srv) {
        return srv.upgrade(req) ? undefined : new Response("no", { status: 400 });
      },
      websocket: {
        message(socket, message) {
          socket.send(`pong:${String(message)}`);
        },
      },
    });
    const url = `ws://127.0.0.1:${ws.port}/`;
    const inst = await wasmLoader.load(admitted("ws-tool"), t.host);
    expect(await inst.invoke(cap, "execute", [url])).toEqual({ success: true, output: "pong:ping", error: undefined });
    await inst.release();
    const denied = await wasmLoader.load(
      admitted("ws-tool", { name: "ws-denied", granted: new Set(["log", "config", "kv"]) }),
      t.host,
    );
    expect(await denied.invoke(cap, "execute", [url])).toMatchObject({
      success: false,
      error: expect.stringContaining('"websocket" permission'),
    });
    await denied.release();
    ws.stop(true);
  });
});

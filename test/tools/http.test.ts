import { afterAll, describe, expect, test } from "bun:test";
import { createHttpTool, HttpResponseSchema, isHttpAllowed, ToolRegistry } from "../../src/tools/index.ts";
import { ToolsSchema, type ToolsConfig } from "../../src/config/schema.ts";
import type { ToolContext } from "../../src/tools/types.ts";

function toolsConfig(overrides: Partial<ToolsConfig> = {}): ToolsConfig {
  return ToolsSchema.parse(overrides);
}

function context(workspace = "/nonexistent", signal: AbortSignal = new AbortController().signal): ToolContext {
  return { sessionId: "test-session", workspace, signal };
}

const MIN_RESPONSE_CAP = 1024;
let slowTimer: ReturnType<typeof setTimeout> | undefined;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    switch (url.pathname) {
      case "/api/hello":
        return Response.json({ hello: "world", method: request.method, body: await request.text() });
      case "/api/redirect-inside":
        return new Response(null, { status: 302, headers: { location: "/api/hello" } });
      case "/api/redirect-outside":
        return new Response(null, { status: 302, headers: { location: "/private/secret" } });
      case "/api/redirect-loop":
        return new Response(null, { status: 302, headers: { location: "/api/redirect-loop" } });
      case "/private/secret":
        return new Response("secret");
      case "/api/big": {
        // a body that never ends: the tool must stop reading at its cap
        const chunk = new Uint8Array(512).fill(97);
        return new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(chunk);
            },
          }),
        );
      }
      case "/api/exact":
        return new Response("b".repeat(MIN_RESPONSE_CAP));
      case "/api/slow":
        return new Promise<Response>((resolve) => {
          slowTimer = setTimeout(() => resolve(new Response("late")), 5_000);
        });
      case "/api/missing":
        return new Response("nope", { status: 404 });
    }
    return new Response("unexpected", { status: 500 });
  },
});

afterAll(() => {
  clearTimeout(slowTimer);
  server.stop(true);
});

const base = `http://127.0.0.1:${server.port}`;

/** The fake server listens on loopback: reached only when [tools.outbound] allow_addresses names it. */
function registryWith(overrides: Parameters<typeof toolsConfig>[0], allowPrivate = true) {
  const outbound = { allow_private: false, allow_addresses: allowPrivate ? ["127.0.0.1"] : [], allow_hosts: [], deny_hosts: [] };
  return new ToolRegistry({ builtins: [createHttpTool(toolsConfig({ outbound, ...overrides }))] });
}

async function request(registry: ToolRegistry, args: Record<string, unknown>) {
  return registry.call("http_request", JSON.stringify(args), context());
}

describe("http_request", () => {
  test("no allowlist: denied with a message telling how to allow", async () => {
    const result = await request(registryWith({}), { url: `${base}/api/hello` });
    expect(result.success).toBe(false);
    expect(result.error).toContain("http_allowlist");
    expect(result.error).toContain("config.toml");
  });

  test("an allowlisted loopback URL is still refused unless [tools.outbound] allows its address", async () => {
    const result = await request(registryWith({ http_allowlist: [`${base}/api/`] }, false), { url: `${base}/api/hello` });
    expect(result.success).toBe(false);
    expect(result.error).toContain("127.0.0.1 is a loopback (127.0.0.0/8) address");
    expect(result.error).toContain("allow_addresses");
  });

  test("an allowed URL is fetched with method and body", async () => {
    const registry = registryWith({ http_allowlist: [`${base}/api/`] });
    const result = await request(registry, { url: `${base}/api/hello`, method: "POST", body: "ping" });
    expect(result.success).toBe(true);
    const response = HttpResponseSchema.parse(JSON.parse(result.output));
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ hello: "world", method: "POST", body: "ping" });
  });

  test("a URL outside the allowlist is denied", async () => {
    const registry = registryWith({ http_allowlist: [`${base}/api/`] });
    const result = await request(registry, { url: `${base}/private/secret` });
    expect(result.success).toBe(false);
    expect(result.error).toContain("not in tools.http_allowlist");
  });

  test("redirects inside the allowlist are followed; to a non-allowed URL refused", async () => {
    const registry = registryWith({ http_allowlist: [`${base}/api/`] });
    const inside = await request(registry, { url: `${base}/api/redirect-inside` });
    expect(inside.success).toBe(true);
    expect(HttpResponseSchema.parse(JSON.parse(inside.output)).url).toBe(`${base}/api/hello`);
    const outside = await request(registry, { url: `${base}/api/redirect-outside` });
    expect(outside.success).toBe(false);
    expect(outside.error).toContain("redirect");
    expect(outside.error).toContain("/private/secret");
    expect(outside.output).not.toContain("secret\"");
    const loop = await request(registry, { url: `${base}/api/redirect-loop` });
    expect(loop.error).toContain("redirects");
  });

  test("the response is cut at http_max_response_bytes: at the cap whole, past it truncated", async () => {
    const registry = registryWith({ http_allowlist: [`${base}/api/`], http_max_response_bytes: MIN_RESPONSE_CAP });
    const exact = HttpResponseSchema.parse(JSON.parse((await request(registry, { url: `${base}/api/exact` })).output));
    expect(exact.body.length).toBe(MIN_RESPONSE_CAP);
    expect(exact.truncated).toBe(false);
    const endless = HttpResponseSchema.parse(JSON.parse((await request(registry, { url: `${base}/api/big` })).output));
    expect(endless.body.length).toBe(MIN_RESPONSE_CAP);
    expect(endless.truncated).toBe(true);
  });

  test("a slow server hits http_timeout_ms", async () => {
    const registry = registryWith({ http_allowlist: [`${base}/api/`], http_timeout_ms: 100 });
    const result = await request(registry, { url: `${base}/api/slow` });
    expect(result.success).toBe(false);
    expect(result.error).toContain("timed out after 100 ms");
  });

  test("an HTTP error status is an error result that still carries the body", async () => {
    const registry = registryWith({ http_allowlist: [`${base}/api/*`] });
    const result = await request(registry, { url: `${base}/api/missing` });
    expect(result.success).toBe(false);
    expect(result.error).toContain("404");
    expect(HttpResponseSchema.parse(JSON.parse(result.output)).body).toBe("nope");
  });

  test("bad arguments are reported, not thrown", async () => {
    const registry = registryWith({ http_allowlist: [`${base}/api/`] });
    expect((await request(registry, { url: "file:///etc/passwd" })).error).toContain("not an absolute http(s) URL");
    expect((await request(registry, { url: `${base}/api/hello`, method: "TRACE" })).error).toContain("method");
  });
});

describe("http allowlist matching", () => {
  const allowed = (list: string[], url: string) => isHttpAllowed(list, new URL(url));

  test("plain entries match at a path boundary only", () => {
    expect(allowed(["https://example.com"], "https://example.com/x")).toBe(true);
    expect(allowed(["https://example.com"], "https://example.com.evil.net/")).toBe(false);
    expect(allowed(["https://api.example.com/v1"], "https://api.example.com/v1/users")).toBe(true);
    expect(allowed(["https://api.example.com/v1"], "https://api.example.com/v1?q=1")).toBe(true);
    expect(allowed(["https://api.example.com/v1"], "https://api.example.com/v10")).toBe(false);
    expect(allowed(["https://EXAMPLE.com/"], "https://example.com/a")).toBe(true);
  });

  test("a trailing * is an explicit raw prefix", () => {
    expect(allowed(["https://api.example.com/v1*"], "https://api.example.com/v10")).toBe(true);
    expect(allowed(["https://api.example.com/v1/*"], "https://api.example.com/v2/")).toBe(false);
  });

  test("userinfo in the URL is never allowed", () => {
    expect(allowed(["https://example.com/*"], "https://user:pw@example.com/")).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SESSION_ID_PATTERN } from "../../src/gateway/limits.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { harness, tick, type Harness, json } from "./harness.ts";

let fake: FakeServer;
let h: Harness;
beforeAll(async () => {
  fake = startFakeOpenAI();
  h = await harness({ fake, gateway: { max_body_bytes: 2048 } });
});
afterAll(async () => {
  await h.close();
  await fake.stop();
});

describe("system routes", () => {
  test("GET /health: ready with database and providers checks", async () => {
    const response = await h.call("/health", { auth: false });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      status: "ok",
      checks: { database: { ok: true }, providers: { ok: true, detail: "fake/fake-model" } },
    });
  });

  test("GET /api/status: version, workspace, provider, memory backend, counts", async () => {
    const body = await json(h.call("/api/status"));
    expect(body).toMatchObject({
      version: "test",
      workspace: h.host.workspace.root,
      provider: "fake",
      model: "fake-model",
      memory_backend: "sqlite",
      counts: { sessions: expect.any(Number), memories: 0, tools: h.host.tools.specs().length },
      gateway: { require_pairing: true, in_flight_turns: 0 },
    });
  });

  test("GET /metrics: Prometheus text with request, turn, provider and tool series", async () => {
    await h.call("/api/sessions/metrics-s/message", {
      json: { message: 'use tool memory_store {"key":"k","content":"v"}' },
    });
    await tick();
    const response = await h.call("/metrics");
    expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    const text = await response.text();
    expect(text).toContain('prx_http_requests_total{route="/api/sessions/:id/message",method="POST",status="200"} 1');
    expect(text).toContain('prx_http_request_duration_seconds_count{route="/api/sessions/:id/message"} 1');
    expect(text).toContain("prx_turn_duration_seconds_count 1");
    expect(text).toContain('prx_provider_calls_total{provider="fake"} 2');
    expect(text).toContain('prx_tool_calls_total{tool="memory_store"} 1');
  });

  test("unknown route: 404 JSON error", async () => {
    const response = await h.call("/api/nothing");
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ error: { code: "NOT_FOUND", message: "no route GET /api/nothing" } });
  });
});

describe("sessions", () => {
  test("POST a message, then list sessions and read its messages", async () => {
    const response = await h.call("/api/sessions/s-1/message", { json: { message: "hello" } });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({
      session_id: "s-1",
      reply: "echo: hello",
      model: "fake-model",
      provider: "fake",
      tool_calls: [],
      usage: { total_tokens: expect.any(Number) },
    });
    const list = await json(h.call("/api/sessions?limit=50"));
    expect(list.sessions.find((s: { id: string }) => s.id === "s-1")).toMatchObject({
      channel: "gateway",
      message_count: 2,
      title: "hello",
    });
    const messages = await json(h.call("/api/sessions/s-1/messages"));
    expect(messages.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["user", "hello"],
      ["assistant", "echo: hello"],
    ]);
  });

  test("unknown session: 404; invalid id: 400; bad limit: 400", async () => {
    const missing = await h.call("/api/sessions/never-seen/messages");
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe("SESSION_NOT_FOUND");
    const longest = "a".repeat(128);
    expect(SESSION_ID_PATTERN.test(longest)).toBe(true);
    expect((await h.call(`/api/sessions/${longest}/messages`)).status).toBe(404);
    expect((await h.call(`/api/sessions/${longest}a/messages`)).status).toBe(400);
    expect((await h.call("/api/sessions/bad%20id/messages")).status).toBe(400);
    expect((await h.call("/api/sessions?limit=zero")).status).toBe(400);
  });

  test("provider failure (JSON reply): 502 naming the provider; the user message is kept", async () => {
    fake.enqueue({ type: "error", status: 500, message: "boom" });
    const response = await h.call("/api/sessions/s-fail/message", { json: { message: "will fail" } });
    expect(response.status).toBe(502);
    const body = await json(response);
    expect(body.error.code).toBe("PROVIDER_HTTP");
    expect(body.error.message).toContain("fake");
    const messages = await json(h.call("/api/sessions/s-fail/messages"));
    expect(messages.messages[0]).toMatchObject({ role: "user", content: "will fail" });
  });
});

describe("bad input", () => {
  const post = (body: RequestInit["body"], headers: Record<string, string> = { "content-type": "application/json" }) =>
    h.call("/api/sessions/bad-1/message", { method: "POST", body, headers });

  test("malformed JSON: 400 naming the problem", async () => {
    const response = await post('{"message": "unterminated');
    expect(response.status).toBe(400);
    expect((await json(response)).error.message).toStartWith("malformed JSON in the request body");
  });

  test("schema violations: 400 naming the field", async () => {
    const wrongType = await post(JSON.stringify({ message: 5 }));
    expect((await json(wrongType)).error.message).toContain("message:");
    const extra = await post(JSON.stringify({ message: "x", extra: 1 }));
    expect(extra.status).toBe(400);
    expect((await post("")).status).toBe(400);
    expect((await post(new Uint8Array([0x7b, 0xff, 0x7d]))).status).toBe(400);
  });

  test("wrong or missing content type: 415", async () => {
    const response = await post(JSON.stringify({ message: "x" }), { "content-type": "text/plain" });
    expect(response.status).toBe(415);
    expect((await json(response)).error.message).toContain("send application/json");
    expect((await post(JSON.stringify({ message: "x" }), {})).status).toBe(415);
  });

  test("body size: at gateway.max_body_bytes it is read, one byte more is 413 naming the limit", async () => {
    const exact = (size: number) => JSON.stringify({ message: "x".repeat(size - 14) });
    expect(exact(2048).length).toBe(2048);
    expect((await post(exact(2048))).status).toBe(200);
    const response = await post(exact(2049));
    expect(response.status).toBe(413);
    expect((await json(response)).error.message).toContain("gateway.max_body_bytes = 2048");
  });

  test("a chunked body without Content-Length is counted as it streams: 413", async () => {
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"message":"'));
        controller.enqueue(new Uint8Array(4096).fill(0x61));
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
      },
    });
    const response = await h.call("/api/sessions/bad-1/message", {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });
});

describe("OpenAPI", () => {
  test("/swagger/json documents every route with request and response schemas", async () => {
    const document = await json(h.call("/swagger/json", { auth: false }));
    const paths = Object.keys(document.paths).sort();
    expect(paths).toEqual([
      "/",
      "/api/agents",
      "/api/auth/token",
      "/api/config",
      "/api/export/memory",
      "/api/export/sessions",
      "/api/import/memory",
      "/api/memory",
      "/api/memory/entries/{key}",
      "/api/memory/search",
      "/api/providers",
      "/api/sessions",
      "/api/sessions/{id}",
      "/api/sessions/{id}/cancel",
      "/api/sessions/{id}/compact",
      "/api/sessions/{id}/message",
      "/api/sessions/{id}/messages",
      "/api/status",
      "/api/status/stream",
      "/api/usage",
      "/console/{name}",
      "/health",
      "/metrics",
      "/pair",
      "/swagger",
      "/swagger/assets/{name}",
      "/swagger/json",
      "/v1/chat/completions",
      "/v1/completions",
      "/v1/embeddings",
      "/v1/messages",
      "/v1/messages/count_tokens",
      "/v1/models",
      "/v1/responses",
      "/v1/responses/{id}",
      "/v1/responses/{id}/input_items",
      "/webhook",
    ]);
    const post = document.paths["/api/sessions/{id}/message"].post;
    // text, or content parts as /v1/chat/completions takes them
    expect(post.requestBody.content["application/json"].schema.properties.message.anyOf.map((s: { type: string }) => s.type)).toEqual(["string", "array"]);
    expect(post.responses["200"].content["application/json"].schema.properties.reply.type).toBe("string");
    expect(post.responses["413"].content["application/json"].schema.properties.error.type).toBe("object");
    expect(post.security).toEqual([{ bearer: [] }]);
    expect(document.paths["/health"].get.security).toBeUndefined();
    expect(document.components.securitySchemes.bearer.scheme).toBe("bearer");
    for (const [path, methods] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(
      document.paths,
    )) {
      // the legacy completions route is documented by its one answer, a 404 with a hint
      const answered = path === "/v1/completions" ? "404" : "200";
      for (const operation of Object.values(methods)) expect(Object.keys(operation.responses), path).toContain(answered);
    }
  });

  test("/swagger renders from local assets only (no CDN), with the console's security headers", async () => {
    const page = await h.call("/swagger", { auth: false });
    const html = await page.text();
    expect(html).toContain('src="/swagger/assets/scalar.js"');
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(html).not.toContain('"persistAuth":true');
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const js = await h.call("/swagger/assets/scalar.js", { auth: false });
    expect(js.headers.get("content-type")).toStartWith("text/javascript");
    expect((await js.text()).length).toBeGreaterThan(100_000);
    expect((await h.call("/swagger/assets/other.js", { auth: false })).status).toBe(404);
  });
});

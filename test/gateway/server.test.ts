import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { createBufferedSink, LOG_BUFFER_MAX_BYTES, LOG_FLUSH_INTERVAL_MS } from "../../src/core/logger.ts";
import { lineAccessLog, type AccessEntry } from "../../src/gateway/access-log.ts";
import { startGateway } from "../../src/gateway/server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { json } from "./harness.ts";

let fake: FakeServer;
let host: AgentHost;
let dir: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-gw-server-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    gateway: { require_pairing: false, shutdown_grace_ms: 5000 },
  });
  host = await openAgentHost({ workspace: dir, config });
});

afterAll(async () => {
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

const quiet = { print: () => {}, handleSignals: false, version: "test", accessLog: () => {} } as const;

describe("startGateway", () => {
  test("refuses a non-loopback bind unless gateway.allow_public_bind", async () => {
    const error = await startGateway({ host, hostname: "0.0.0.0", port: 0, ...quiet }).catch((e) => e);
    expect(error).toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining("not a loopback address") });
    expect(error.hint).toContain("allow_public_bind");
    const open = await startGateway({
      host,
      hostname: "0.0.0.0",
      port: 0,
      config: { ...host.config.gateway, allow_public_bind: true },
      ...quiet,
    });
    expect((await fetch(`http://127.0.0.1:${open.port}/health`)).status).toBe(200);
    await open.stop();
  });

  test("a busy port is a clear error", async () => {
    const first = await startGateway({ host, port: 0, ...quiet });
    const error = await startGateway({ host, port: first.port, ...quiet }).catch((e) => e);
    expect(error).toMatchObject({
      code: "USAGE",
      message: expect.stringContaining(`cannot listen on 127.0.0.1:${first.port}`),
    });
    await first.stop();
  });

  test("stop(): in-flight turns finish, new turns get 503, then the server closes", async () => {
    const gateway = await startGateway({ host, port: 0, ...quiet });
    fake.enqueue({ type: "text", text: "done late", delayMs: 400 });
    const inflight = fetch(`${gateway.url}/api/sessions/grace/message`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "take your time" }),
    });
    while (gateway.context.turns.inFlight === 0) await Bun.sleep(5);
    const stopping = gateway.stop();
    const refused = await gateway.context.turns.run(async () => "admitted").catch((e) => e);
    expect(refused).toMatchObject({ code: "ABORTED", status: 503 });
    const response = await inflight;
    expect(response.status).toBe(200);
    expect((await json(response)).reply).toBe("done late");
    await stopping;
    await gateway.closed;
    expect(await fetch(`${gateway.url}/health`).catch(() => "refused")).toBe("refused");
  });

  test("the socket's peer address is the client for rate limits", async () => {
    const gateway = await startGateway({
      host,
      port: 0,
      config: { ...host.config.gateway, rate_limit_per_minute: 2 },
      ...quiet,
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${gateway.url}/api/status`)).status);
    expect(statuses).toEqual([200, 200, 429]);
    await gateway.stop();
  });

  test("one access-log line per request, native routes (/health, chat completions) and Elysia ones alike", async () => {
    const entries: AccessEntry[] = [];
    const gateway = await startGateway({ host, port: 0, ...quiet, accessLog: (entry) => void entries.push(entry) });
    const health = await fetch(`${gateway.url}/health`, { headers: { "x-request-id": "probe-1" } });
    expect(health.status).toBe(200);
    expect(health.headers.get("x-request-id")).toBe("probe-1");
    const bad = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect((await json(bad)).error.code).toBe("BAD_REQUEST");
    expect((await fetch(`${gateway.url}/api/status`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/nope`)).status).toBe(404);
    expect(entries.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      "GET /health 200",
      "POST /v1/chat/completions 400",
      "GET /api/status 200",
      "GET /nope 404",
    ]);
    expect(entries[0]).toMatchObject({ id: "probe-1", client: "127.0.0.1" });
    const metrics = gateway.context.metrics.httpRequests;
    expect(metrics.get({ route: "/health", method: "GET", status: "200" })).toBe(1);
    expect(metrics.get({ route: "/v1/chat/completions", method: "POST", status: "400" })).toBe(1);
    await gateway.stop();
  });

  test("by default the access log is printed in the logger's format, batched until its flush", () => {
    const writes: string[] = [];
    const scheduled: Array<() => void> = [];
    const log = lineAccessLog(createBufferedSink((text) => void writes.push(text), (flush) => void scheduled.push(flush)));
    log({ method: "GET", path: "/health", status: 200, id: "a", ms: 0.4, client: "127.0.0.1" });
    log({ method: "POST", path: "/pair", status: 401, id: "b", ms: 1, client: "127.0.0.1", token: "tok_x" });
    expect(writes).toEqual([]);
    expect(scheduled.length).toBe(1);
    scheduled[0]!();
    expect(writes.length).toBe(1);
    const lines = writes[0]!.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO  \[gateway\.access\] GET \/health 200 \{"id":"a","ms":0\.4,"client":"127\.0\.0\.1"\}$/,
    );
    expect(lines[1]).toEndWith(' POST /pair 401 {"id":"b","ms":1,"client":"127.0.0.1","token":"tok_x"}');
  });
});

describe("createBufferedSink", () => {
  test(`holds lines below LOG_BUFFER_MAX_BYTES (${LOG_BUFFER_MAX_BYTES}) until its flush; at it, writes`, () => {
    const writes: string[] = [];
    const scheduled: Array<() => void> = [];
    const sink = createBufferedSink((text) => void writes.push(text), (flush) => void scheduled.push(flush));
    sink("x".repeat(LOG_BUFFER_MAX_BYTES - 3)); // with its newline: two bytes under the limit
    sink(""); // one byte under: still held
    expect(writes).toEqual([]);
    sink(""); // exactly at the limit
    expect(writes.length).toBe(1);
    expect(writes[0]!.length).toBe(LOG_BUFFER_MAX_BYTES);
    sink(() => "made later");
    expect(writes.length).toBe(1);
    sink.flush();
    expect(writes[1]).toBe("made later\n");
    for (const flush of scheduled) flush();
    expect(writes.length).toBe(2);
  });

  test(`the default flush comes LOG_FLUSH_INTERVAL_MS (${LOG_FLUSH_INTERVAL_MS}) after the first held line; an idle sink schedules nothing`, async () => {
    const writes: string[] = [];
    const sink = createBufferedSink((text) => void writes.push(text));
    sink("held");
    expect(writes).toEqual([]);
    await Bun.sleep(LOG_FLUSH_INTERVAL_MS * 3);
    expect(writes).toEqual(["held\n"]);
  });
});

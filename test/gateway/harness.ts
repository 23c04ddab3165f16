import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost, type OpenAgentHostOptions } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { openWorkspace } from "../../src/core/workspace.ts";
import { buildGateway } from "../../src/gateway/app.ts";
import type { GatewayContext } from "../../src/gateway/context.ts";
import type { GatewayElysia } from "../../src/gateway/elysia.ts";
import { AuthService } from "../../src/gateway/auth/service.ts";
import type { GatewayDeps } from "../../src/gateway/types.ts";
import { openSqliteStorage, type SqliteTokenStore } from "../../src/storage/index.ts";
import type { FakeServer } from "../fakes/openai-server.ts";

/** Tests name the client address with this header (the real server uses the socket's peer address). */
export const CLIENT_HEADER = "x-test-client";

export interface Harness {
  host: AgentHost;
  app: GatewayElysia;
  gw: GatewayContext;
  auth: AuthService<SqliteTokenStore>;
  token: string;
  clock: { now: number; advance(ms: number): void };
  /** app.handle with the bearer token (unless `auth: false`) and JSON helpers. */
  call(
    path: string,
    init?: RequestInit & { auth?: boolean | string; json?: unknown; client?: string },
  ): Promise<Response>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  fake?: FakeServer;
  gateway?: Record<string, unknown>;
  config?: Record<string, unknown>;
  requirePairing?: boolean;
  deps?: Partial<GatewayDeps>;
  /** Create a token up front (default true). */
  withToken?: boolean;
  /** Options of the agent host beyond the workspace, config and storage the harness gives it. */
  host?: Partial<OpenAgentHostOptions>;
}

export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "prx-gw-"));
  const providers = options.fake
    ? {
        default_provider: "fake",
        default_model: "fake-model",
        providers: { fake: { base_url: options.fake.url, models: ["fake-model", "fake-big"] } },
      }
    : {};
  const config = ConfigSchema.parse({
    ...providers,
    reliability: { retries: 0 },
    model_routes: [{ hint: "fast", provider: options.fake ? "fake" : "offline", model: "fake-fast" }],
    gateway: { require_pairing: options.requirePairing ?? true, ...options.gateway },
    // tools called through this gateway run without asking for approval unless a test says otherwise
    autonomy: { level: "full" },
    ...options.config,
  });
  const clock = {
    now: Date.UTC(2026, 0, 1),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const now = () => clock.now;
  // the gateway's tokens and idempotency keys follow the test clock
  const workspace = openWorkspace(dir);
  const storage = openSqliteStorage(workspace.dbPath, { now, idempotencyTtlMs: config.gateway.idempotency_ttl_s * 1000 });
  const host = await openAgentHost({ ...options.host, workspace, config, storage });
  const auth = new AuthService({
    tokens: storage.tokens,
    pairingCodes: storage.gatewayPairing,
    required: config.gateway.require_pairing,
    pairingCodeTtlMs: config.gateway.pairing_code_ttl_s * 1000,
    now,
  });
  const token = options.withToken === false ? "" : auth.tokens.create("test").token;
  const { app, context } = buildGateway({
    host,
    auth,
    version: "test",
    startedAt: clock.now,
    clock: now,
    clientAddress: (request) => request.headers.get(CLIENT_HEADER) ?? "127.0.0.1",
    ...options.deps,
  });
  return {
    host,
    app,
    gw: context,
    auth,
    token,
    clock,
    call(path, init = {}) {
      const { auth: useAuth = true, json, client, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (useAuth) headers.set("authorization", `Bearer ${typeof useAuth === "string" ? useAuth : token}`);
      if (client) headers.set(CLIENT_HEADER, client);
      let body = rest.body;
      if (json !== undefined) {
        body = JSON.stringify(json);
        if (!headers.has("content-type")) headers.set("content-type", "application/json");
      }
      const method = rest.method ?? (body === undefined ? "GET" : "POST");
      return app.handle(new Request(`http://localhost${path}`, { ...rest, method, headers, body }));
    },
    async close() {
      await host.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Parse an SSE body into events (event name defaults to "message" as in the spec; `data` kept raw). */
export async function readSse(response: Response): Promise<Array<{ event: string; data: string }>> {
  const text = await response.text();
  const events: Array<{ event: string; data: string }> = [];
  for (const block of text.split("\n\n")) {
    if (!block.trim() || block.startsWith(":")) continue;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    events.push({ event, data: data.join("\n") });
  }
  return events;
}

/** onAfterResponse (metrics, access log) runs one macrotask after the response. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A response body as JSON, untyped for assertions. */
export async function json(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

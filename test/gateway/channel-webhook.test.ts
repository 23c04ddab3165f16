import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { healthBeforeApp } from "../../src/boot/health-before-app.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { PrxError } from "../../src/core/errors.ts";
import type { AccessEntry } from "../../src/gateway/access-log.ts";
import { CHANNEL_WEBHOOK_ROUTE, channelWebhookFront, type ChannelForward } from "../../src/gateway/channel-webhook.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";

/**
 * /channels/<name>/webhook answered beside the app (the channel's process is a collaborator here, a recording
 * stand-in): forwarded as it came, refused by the client's rate limit and the body limit in the gateway's error shape,
 * recorded in the access log and the metrics, all without the app being built.
 */
let host: AgentHost;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "prx-gw-channel-webhook-"));
  const config = ConfigSchema.parse({
    default_provider: "off",
    default_model: "m",
    providers: { off: { kind: "offline" } },
    gateway: { require_pairing: false, rate_limit_per_minute: 3 },
  });
  host = await openAgentHost({ workspace: dir, config });
});

afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

type Forwarded = Parameters<ChannelForward["forward"]>;

async function start(maxBodyBytes = 1024) {
  let builds = 0;
  const log: AccessEntry[] = [];
  const forwarded: Forwarded[] = [];
  const api: ChannelForward = {
    forward: async (name, request) => {
      forwarded.push([name, request]);
      if (name !== "hook") throw new PrxError("NOT_FOUND", `no enabled channel named "${name}"`, { status: 404 });
      return { status: 401, headers: { "x-channel": "yes" }, body: JSON.stringify({ error: "bad signature: test" }) };
    },
  };
  const gateway: GatewayServer = await startGateway({
    host,
    port: 0,
    print: () => {},
    handleSignals: false,
    version: "test",
    accessLog: (entry) => log.push(entry),
    beforeApp: healthBeforeApp,
    front: [channelWebhookFront(api, maxBodyBytes)],
    mounts: () => {
      builds++;
      return [];
    },
  });
  return { gateway, log, forwarded, builds: () => builds, post: (path: string, body: string, headers: Record<string, string> = {}) => fetch(`${gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }) };
}

describe("channel webhooks beside the app", () => {
  test("a request is forwarded as it came and the channel's answer goes back as it is, the app never built", async () => {
    const s = await start();
    try {
      const response = await s.post("/channels/hook/webhook?a=1", '{"x":1}', { "x-prx-signature": "v1=ab", "x-request-id": "req-1" });
      expect(response.status).toBe(401);
      expect(response.headers.get("x-channel")).toBe("yes");
      expect(response.headers.get("x-request-id")).toBe("req-1");
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(await response.json()).toEqual({ error: "bad signature: test" });
      const [name, request] = s.forwarded[0]!;
      expect(name).toBe("hook");
      expect(request.method).toBe("POST");
      expect(request.query).toBe("?a=1");
      expect(request.body).toBe('{"x":1}');
      expect(request.headers["x-prx-signature"]).toBe("v1=ab");
      expect(s.log).toEqual([expect.objectContaining({ method: "POST", path: "/channels/hook/webhook", status: 401, id: "req-1" })]);
      expect(s.gateway.context.metrics.render({})).toContain(`route="${CHANNEL_WEBHOOK_ROUTE}"`);
      expect(s.builds()).toBe(0);
    } finally {
      await s.gateway.stop();
    }
  });

  test("an unknown channel is a 404, a body over the limit a 413, past the client's rate limit a 429 with Retry-After", async () => {
    const s = await start(16);
    try {
      const unknown = await s.post("/channels/nope/webhook", "{}");
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
      expect(unknown.headers.get("x-request-id")).toBeTruthy();
      const large = await s.post("/channels/hook/webhook", JSON.stringify({ text: "x".repeat(64) }));
      expect(large.status).toBe(413);
      expect(((await large.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
      // rate_limit_per_minute = 3: the fourth request of this client
      await (await s.post("/channels/hook/webhook", "{}")).arrayBuffer();
      const limited = await s.post("/channels/hook/webhook", "{}");
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(s.forwarded.map(([name]) => name)).toEqual(["nope", "hook"]);
      expect(s.log.map((entry) => entry.status)).toEqual([404, 413, 401, 429]);
      expect(s.builds()).toBe(0);
    } finally {
      await s.gateway.stop();
    }
  });

  test("other paths are the app's", async () => {
    const s = await start();
    try {
      const response = await s.post("/channels/hook/webhook/more", "{}");
      expect(response.status).toBe(404);
      expect(s.builds()).toBe(1);
      expect(s.forwarded).toEqual([]);
    } finally {
      await s.gateway.stop();
    }
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { healthBeforeApp } from "../../src/boot/health-before-app.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { AccessEntry } from "../../src/gateway/access-log.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import type { GatewayMount } from "../../src/gateway/types.ts";

/**
 * With the boot's healthBeforeApp the gateway answers GET /health before it has a route table; the first other request
 * builds it once (the mounts are loaded then), and from then on every request, /health included, goes through it.
 */
let host: AgentHost;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "prx-gw-on-demand-"));
  const config = ConfigSchema.parse({
    default_provider: "off",
    default_model: "m",
    providers: { off: { kind: "offline" } },
    gateway: { require_pairing: false },
  });
  host = await openAgentHost({ workspace: dir, config });
});

afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Started {
  gateway: GatewayServer;
  builds: () => number;
  log: AccessEntry[];
  get: (path: string, init?: RequestInit) => Promise<Response>;
}

async function start(mounts: () => Promise<GatewayMount[]>): Promise<Started> {
  let builds = 0;
  const log: AccessEntry[] = [];
  const gateway = await startGateway({
    host,
    port: 0,
    print: () => {},
    handleSignals: false,
    version: "test",
    accessLog: (entry) => log.push(entry),
    beforeApp: healthBeforeApp,
    mounts: () => {
      builds++;
      return mounts();
    },
  });
  return { gateway, builds: () => builds, log, get: (path, init) => fetch(`${gateway.url}${path}`, init) };
}

const probe: GatewayMount = (app) => app.get("/probe", () => new Response("probe"), { detail: { hide: true } });

/** The first line of the answer to a request written byte for byte (fetch would not send a GET's Content-Length). */
async function rawRequest(port: number, request: string): Promise<string> {
  const { promise, resolve } = Promise.withResolvers<string>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: { data: (_socket, data) => resolve(new TextDecoder().decode(data).split("\r\n")[0]!) },
  });
  socket.write(request);
  const line = await promise;
  socket.end();
  return line;
}

/** Headers that differ between two answers by nature. */
function stable(response: Response): Record<string, string> {
  const headers = Object.fromEntries(response.headers);
  delete headers.date;
  delete headers["x-request-id"];
  return headers;
}

describe("the route table is built on the first request past /health", () => {
  test("GET /health answers as the full route does, with its request id, metrics and access log line, and builds nothing", async () => {
    const { gateway, builds, log, get } = await start(async () => [probe]);
    try {
      const resting = await get("/health", { headers: { "x-request-id": "resting-1" } });
      const restingBody = await resting.json();
      expect(builds()).toBe(0);
      expect(resting.headers.get("x-request-id")).toBe("resting-1");
      expect(log.map((e) => [e.method, e.path, e.status, e.id])).toEqual([["GET", "/health", 200, "resting-1"]]);
      expect(gateway.context.metrics.render({})).toContain('route="/health"');

      expect((await get("/probe")).status).toBe(200);
      expect(builds()).toBe(1);
      const full = await get("/health", { headers: { "x-request-id": "full-1" } });
      expect(full.status).toBe(resting.status);
      expect(await full.json()).toEqual(restingBody);
      expect(stable(full)).toEqual(stable(resting));
      expect(full.headers.get("x-request-id")).toBe("full-1");
    } finally {
      await gateway.stop();
    }
  });

  test("requests that arrive together share one build; later ones do not build again", async () => {
    const { gateway, builds, get } = await start(async () => {
      await Bun.sleep(20);
      return [probe];
    });
    try {
      const answers = await Promise.all([get("/probe"), get("/probe"), get("/api/status"), get("/nowhere")]);
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 404]);
      expect((await get("/probe")).status).toBe(200);
      expect(builds()).toBe(1);
    } finally {
      await gateway.stop();
    }
  });

  test("HEAD /health is answered at rest; a /health with a declared body goes to the full pipeline (its size check)", async () => {
    const { gateway, builds, log, get } = await start(async () => []);
    try {
      const head = await get("/health", { method: "HEAD" });
      expect([head.status, await head.text(), builds()]).toEqual([200, "", 0]);
      expect(log.map((e) => e.method)).toEqual(["HEAD"]);
      const declared = host.config.gateway.max_body_bytes + 1;
      const answer = await rawRequest(gateway.port, `GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 413");
      expect(builds()).toBe(1);
    } finally {
      await gateway.stop();
    }
  });

  test("a route table that fails to build answers 500 naming why, and the next request tries again", async () => {
    let fail = true;
    const { gateway, builds, get } = await start(async () => {
      if (fail) throw new Error("mount exploded");
      return [probe];
    });
    try {
      const failed = await get("/probe");
      expect(failed.status).toBe(500);
      const body = (await failed.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("INTERNAL");
      expect(body.error.message).toContain("mount exploded");
      expect((await get("/health")).status).toBe(200);
      fail = false;
      expect((await get("/probe")).status).toBe(200);
      expect(builds()).toBe(2);
    } finally {
      await gateway.stop();
    }
  });
});

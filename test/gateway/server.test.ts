import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
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

const quiet = { print: () => {}, handleSignals: false, version: "test" } as const;

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
});

/**
 * The built gateway with `[storage] backend = "postgres"` through a restart of its PostgreSQL (a cluster of this
 * test's own, stopped and started again on the same port, and then killed and started as after a crash): /health
 * answers 503 while it is down, and once it is back /health is 200 and authenticated routes and turns work, without
 * a restart of the gateway.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeProviderConfig, runPrx, startGatewayBinary, tempWorkspace, type RunningGateway } from "../helpers/binary.ts";
import { ownPostgres, PG_BIN, testNeedingBinary, type OwnServer } from "../helpers/own-servers.ts";
import { gatewayClient } from "../helpers/gateway-client.ts";
import type { TempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(120_000);

/** A request not answered within this long counts as not answered (well above HEALTH_CHECK_TIMEOUT_MS). */
const ANSWER_WITHIN_MS = 10_000;

const testWithPostgres = testNeedingBinary(join(PG_BIN, "pg_ctl"), "PostgreSQL 15 (pg_ctl)");
let pg: OwnServer | null = null;
let fake: FakeOpenAIServer;
let ws: TempWorkspace;
let gw: RunningGateway;
let token = "";

const { request, turn } = gatewayClient(() => gw.url, () => token, ANSWER_WITHIN_MS);

async function healthStatus(): Promise<number | null> {
  const response = await request("/health");
  await response?.arrayBuffer();
  return response?.status ?? null;
}

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  pg = await ownPostgres();
  fake = startFakeOpenAI();
  ws = tempWorkspace(fakeProviderConfig(fake.url, `[storage]\nbackend = "postgres"\nschema = "prx_restart"\n`), { prefix: "prx-pg-restart-" });
  const env = { DATABASE_URL: pg.url };
  const created = await runPrx(["gateway", "token", "create", "-w", ws.dir], { env });
  expect(created.code).toBe(0);
  token = created.stdout.trim();
  gw = await startGatewayBinary(ws.dir, env, "listening");
});

afterAll(async () => {
  gw?.proc.kill();
  await gw?.proc.exited;
  await fake?.stop();
  ws?.cleanup();
  await pg?.dispose();
});

async function outage(stop: () => Promise<void>, tag: string): Promise<void> {
  await waitFor(async () => (await healthStatus()) === 200, `/health 200 before the ${tag}`);
  expect(await turn(`before-${tag}`, "hello before")).toEqual({ status: 200, reply: expect.stringContaining("hello before") });
  await stop();
  await waitFor(async () => {
    const status = await healthStatus();
    expect(status).not.toBeNull(); // every /health while PostgreSQL is down answers (in time)
    return status === 503;
  }, `/health 503 while PostgreSQL is down (${tag})`);
  await pg!.start();
  await waitFor(async () => (await healthStatus()) === 200, `/health 200 after PostgreSQL returned (${tag})`);
  // the first requests after the restart already work: no stale connection of the pools answers an error
  expect((await request("/api/sessions"))?.status).toBe(200);
  expect(await turn(`before-${tag}`, "hello after")).toEqual({ status: 200, reply: expect.stringContaining("hello after") });
  expect(await turn(`after-${tag}`, "hello again")).toEqual({ status: 200, reply: expect.stringContaining("hello again") });
}

describe("gateway through a PostgreSQL restart (built binary)", () => {
  testWithPostgres("a clean restart (fast shutdown): 503 while down, 200 and working turns after, by itself", async () => {
    await outage(() => pg!.stop(), "restart");
  });

  testWithPostgres("a crash (immediate shutdown, connections cut): the same", async () => {
    await outage(() => pg!.kill(), "crash");
  });

  testWithPostgres("a PostgreSQL that stops answering (frozen, connections open): /health still answers 503, and 200 once it answers", async () => {
    await waitFor(async () => (await healthStatus()) === 200, "/health 200 before the freeze");
    pg!.pause();
    try {
      const status = await healthStatus();
      expect(status).toBe(503);
    } finally {
      pg!.resume();
    }
    await waitFor(async () => (await healthStatus()) === 200, "/health 200 once PostgreSQL answers again");
    expect(await turn("after-freeze", "hello after")).toEqual({ status: 200, reply: expect.stringContaining("hello after") });
  });
});

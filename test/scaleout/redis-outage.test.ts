/**
 * The built gateway with `[bus] backend = "redis"` through a Redis outage, on a redis-server of this test's own:
 * while Redis is away /health answers 503 (promptly: a client that waits longer gives up) and a turn still completes;
 * once Redis is back on the same port, /health is 200 again and authenticated routes work, without a restart.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeProviderConfig, runPrx, startGatewayBinary, tempWorkspace, type RunningGateway } from "../helpers/binary.ts";
import { ownRedis, REDIS_SERVER, testNeedingBinary, type OwnServer } from "../helpers/own-servers.ts";
import { gatewayClient } from "../helpers/gateway-client.ts";
import type { TempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(90_000);

/**
 * A request the gateway has not answered within this long counts as not answered. It is well above what the
 * gateway's own bounds allow (HEALTH_CHECK_TIMEOUT_MS, REDIS_COMMAND_TIMEOUT_MS) and well below Bun's client giving up
 * on Redis by itself (about 30 s), which is what held every request before.
 */
const ANSWER_WITHIN_MS = 10_000;

const testWithRedis = testNeedingBinary(REDIS_SERVER, "redis-server");
let redis: OwnServer | null = null;
let fake: FakeOpenAIServer;
let ws: TempWorkspace;
let gw: RunningGateway;
let token = "";

const { request, turn } = gatewayClient(() => gw.url, () => token, ANSWER_WITHIN_MS);

async function health(): Promise<{ status: number; bus: string } | null> {
  const response = await request("/health");
  if (!response) return null;
  const body = (await response.json()) as { checks: Record<string, { detail?: string }> };
  return { status: response.status, bus: body.checks.bus?.detail ?? "" };
}

beforeAll(async () => {
  if (testWithRedis !== test) return;
  redis = await ownRedis();
  fake = startFakeOpenAI();
  const prefix = `prxt:outage:${process.pid}`;
  ws = tempWorkspace(fakeProviderConfig(fake.url, `[bus]\nbackend = "redis"\nprefix = "${prefix}"\n`), { prefix: "prx-outage-" });
  const env = { REDIS_URL: redis.url, PRX_LOG: "info" };
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
  await redis?.dispose();
});

describe("gateway through a Redis outage (built binary)", () => {
  testWithRedis("503 while Redis is away, turns still served, back to 200 by itself when Redis returns", async () => {
    await waitFor(async () => (await health())?.status === 200, "/health 200 with Redis up");
    expect(await turn("before", "hello before")).toEqual({ status: 200, reply: expect.stringContaining("hello before") });

    await redis!.stop();
    const down = await waitFor(async () => {
      const answer = await health();
      expect(answer).not.toBeNull(); // every /health during the outage answers (in time)
      return answer!.status === 503 ? answer : null;
    }, "/health 503 with Redis away");
    expect(down.bus).toContain("redis unreachable");

    const during = await turn("during", "hello during the outage");
    expect(during).toEqual({ status: 200, reply: expect.stringContaining("hello during the outage") });

    await redis!.start();
    const back = await waitFor(async () => {
      const answer = await health();
      return answer?.status === 200 ? answer : null;
    }, () => `/health 200 after Redis returned; gateway stderr:\n${gw.stderr.text().slice(-2000)}`);
    expect(back.bus).toMatch(/redis up, [1-9]\d* reconnection/);
    const sessions = await request("/api/sessions");
    expect(sessions?.status).toBe(200);
    expect(await turn("after", "hello after")).toEqual({ status: 200, reply: expect.stringContaining("hello after") });
  });

  testWithRedis("a Redis that stops answering (frozen, connection open): /health answers 503, a turn completes; 200 once it answers", async () => {
    await waitFor(async () => (await health())?.status === 200, "/health 200 before the freeze");
    redis!.pause();
    try {
      const frozen = await health();
      expect(frozen?.status).toBe(503);
      expect(await turn("frozen", "hello while frozen")).toEqual({ status: 200, reply: expect.stringContaining("hello while frozen") });
    } finally {
      redis!.resume();
    }
    await waitFor(async () => (await health())?.status === 200, "/health 200 once Redis answers again");
    expect(await turn("thawed", "hello after")).toEqual({ status: 200, reply: expect.stringContaining("hello after") });
  });
});

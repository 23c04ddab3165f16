/**
 * `prx doctor` on a workspace with `[bus] backend = "redis"`, through the binary and the Redis of the development and
 * CI machines: it counts the replicas that are running, not every entry left in the registry.
 */
import { afterAll, expect } from "bun:test";
import { RedisClient } from "bun";
import { FABRIC_REPLICA_TTL_MS } from "../../src/plugins/fabric/index.ts";
import { runPrx, tempWorkspace } from "../helpers/binary.ts";
import { testNeeding, TEST_REDIS_URL, uniquePrefix } from "../helpers/servers.ts";

const testWithRedis = await testNeeding("redis");
const prefix = uniquePrefix("doctor-bus");
const ws = tempWorkspace(`[bus]\nbackend = "redis"\nprefix = "${prefix}"\n`, { prefix: "prx-doctor-bus-" });
const redis = new RedisClient(TEST_REDIS_URL);

afterAll(async () => {
  await redis.send("DEL", [`${prefix}:replicas`]).catch(() => undefined);
  redis.close();
  ws.cleanup();
});

testWithRedis("the bus check counts running replicas and counts stale entries apart", async () => {
  const now = Date.now();
  await redis.send("HSET", [
    `${prefix}:replicas`,
    "running-1",
    JSON.stringify({ at: now, patterns: [] }),
    "running-2",
    JSON.stringify({ at: now - 1_000, patterns: ["chat.*"] }),
    "quiet",
    JSON.stringify({ at: now - FABRIC_REPLICA_TTL_MS - 60_000, patterns: [] }),
    "garbage",
    "{not an announcement",
  ]);
  const run = await runPrx(["doctor", "--json", "-w", ws.dir], { env: { REDIS_URL: TEST_REDIS_URL } });
  const report = JSON.parse(run.stdout) as { checks: Array<{ status: string; name: string; detail: string }> };
  const bus = report.checks.find((check) => check.name === "bus");
  expect(bus).toEqual({
    status: "ok",
    name: "bus",
    detail: `redis answers; 2 replica(s) running under ${prefix}; 2 stale registry entries (replicas gone quiet; running replicas remove them)`,
  });
});

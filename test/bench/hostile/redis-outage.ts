/**
 * A Redis outage under a gateway with `[bus] backend = "redis"` (a redis-server of the bench's own, killed and started
 * again on the same port): /health latency while it is away, turns served meanwhile by a few clients at once (both
 * beside the same load with Redis up), and how long after Redis returns /health is 200 again.
 */
import { REDIS_RECONNECT_MAX_MS } from "../../../src/storage/redis/index.ts";
import { ownRedis } from "../../helpers/own-servers.ts";
import { startHostileGateway, type HostileGateway } from "../../plugins/remote-hostile/gateway.ts";
import { percentile, type BenchRow } from "../types.ts";
import { HealthProber } from "./prober.ts";

/** How long Redis stays away. */
const OUTAGE_MS = 5_000;
/** The same load with Redis up, before the outage, for comparison. */
const BASELINE_MS = 2_000;
/** Clients sending turns during the outage, each one every TURN_EVERY_MS (a steady load, not a flood). */
const CLIENTS = 4;
const TURN_EVERY_MS = 50;
/** /health answers while Redis is away: at once (the connection is known lost), whatever the outage's length. */
const HEALTH_P99_TARGET_MS = 50;
/** Back within the reconnection cap, plus a second for the gateway to see it and a probe to ask. */
const RECOVERY_TARGET_MS = REDIS_RECONNECT_MAX_MS + 1_000;
/** A turn during the outage must not wait for Redis (the fake provider answers at once). */
const TURN_P99_TARGET_MS = 500;

const row = (r: Omit<BenchRow, "suite">): BenchRow => ({ suite: "hostile", ...r, name: `redis outage: ${r.name}` });

async function turns(gw: HostileGateway, client: number, until: () => boolean, latencies: number[]): Promise<number> {
  let failed = 0;
  for (let i = 0; !until(); i++) {
    const t0 = performance.now();
    try {
      const response = await gw.get(`/api/sessions/outage-${client}/message`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: `turn ${i}` }),
        signal: AbortSignal.timeout(30_000),
      });
      await response.arrayBuffer();
      if (response.status !== 200) failed += 1;
    } catch {
      failed += 1;
    }
    const took = performance.now() - t0;
    latencies.push(took);
    await Bun.sleep(Math.max(0, TURN_EVERY_MS - took));
  }
  return failed;
}

/** /health probed and turns sent by CLIENTS clients for `ms`. */
async function underLoad(gw: HostileGateway, ms: number) {
  const prober = new HealthProber(gw.url);
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const failures = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => turns(gw, c, () => performance.now() > end, latencies)));
  const health = await prober.stop();
  const sorted = latencies.sort((a, b) => a - b);
  return { health, turnP99: percentile(sorted, 99), turns: sorted.length, failed: failures.reduce((a, b) => a + b, 0) };
}

export async function redisOutageRows(ctx: { binary: string; tmp: string }, fakeUrl: string): Promise<BenchRow[]> {
  try {
    return await measure(ctx, fakeUrl);
  } catch (error) {
    return [row({ name: "failed", value: NaN, unit: "count", note: String(error) })];
  }
}

async function measure({ binary, tmp }: { binary: string; tmp: string }, fakeUrl: string): Promise<BenchRow[]> {
  const redis = await ownRedis();
  const gw = await startHostileGateway({
    binary,
    plugin: { transport: "worker" },
    stderrFile: `${tmp}/redis-outage.log`,
    env: { REDIS_URL: redis.url, PRX_LOG: process.env.PRX_LOG ?? "error" },
    config:
      `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\n` +
      `base_url = "${fakeUrl}"\nmodels = ["fake-model"]\n[bus]\nbackend = "redis"\nprefix = "prx-bench-outage"\n` +
      `[gateway]\nrate_limit_per_minute = 100000000\nrate_limit_per_token_per_minute = 100000000\n`,
  });
  try {
    const startBy = performance.now() + 30_000;
    // steady state first: the plugin runtime has joined the other replicas (its first generation is loaded)
    const settled = async () => {
      const response = await fetch(`${gw.url}/health`);
      const body = (await response.json()) as { checks: { plugins?: { detail?: string } } };
      return response.status === 200 && body.checks.plugins?.detail?.startsWith("generation") === true;
    };
    while (!(await settled())) {
      if (performance.now() > startBy) throw new Error("the gateway was not healthy within 30 s of starting");
      await Bun.sleep(50);
    }
    const before = await underLoad(gw, BASELINE_MS);
    await redis.kill();
    const during = await underLoad(gw, OUTAGE_MS);
    await redis.start();
    const returned = performance.now();
    let recovery = NaN;
    while (performance.now() - returned < 30_000) {
      if ((await fetch(`${gw.url}/health`)).status === 200) {
        recovery = performance.now() - returned;
        break;
      }
      await Bun.sleep(20);
    }
    const probes = `${during.health.count} probes over ${OUTAGE_MS / 1000} s, ${during.health.count - during.health.failures} not 503`;
    return [
      row({ name: "/health p99 during the outage", value: during.health.p99, unit: "ms", target: { op: "<=", value: HEALTH_P99_TARGET_MS }, note: probes }),
      row({ name: "/health max during the outage", value: during.health.max, unit: "ms" }),
      row({ name: "/health p99 before the outage (same load, Redis up)", value: before.health.p99, unit: "ms" }),
      row({
        name: "turn p99 during the outage",
        value: during.turnP99,
        unit: "ms",
        target: { op: "<=", value: TURN_P99_TARGET_MS },
        note: `${CLIENTS} clients, one turn each every ${TURN_EVERY_MS} ms: ${during.turns} turns, ${during.failed} failed`,
      }),
      row({ name: "turn p99 before the outage", value: before.turnP99, unit: "ms", note: `${before.turns} turns, ${before.failed} failed` }),
      row({ name: "recovery time (Redis back -> /health 200)", value: recovery, unit: "ms", target: { op: "<=", value: RECOVERY_TARGET_MS } }),
    ];
  } finally {
    await gw.stop();
    await redis.dispose();
  }
}

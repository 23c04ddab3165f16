/**
 * Hostile plugins against the built gateway: per scenario, /health p99 and max while a client probes it every 20 ms
 * during the attack, a normal turn after it, and what the scenario itself measures (RSS, counts, children left).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { vmRssBytes } from "../../../src/plugins/remote/host/memory/process-rss.ts";
import { startHostileGateway, type HostileGateway } from "../../plugins/remote-hostile/gateway.ts";
import { startStandaloneFake } from "../announce.ts";
import { connectionFlood } from "../hostile/connection-flood.ts";
import { DEEP_JSON } from "../hostile/deep-json.ts";
import { HealthProber } from "../hostile/prober.ts";
import { HOST_CALL_SCENARIOS } from "../hostile/host-calls.ts";
import { redisOutageRows } from "../hostile/redis-outage.ts";
import { LOOP_TOOL, SCENARIOS, type Scenario } from "../hostile/scenarios.ts";
import type { BenchRow, BenchSuite } from "../types.ts";

const HEALTH_P99_TARGET_MS = 50;
/** A normal turn after the attack must answer; this bounds "answers" for the table. */
const TURN_TARGET_MS = 1_000;
const SETTLE_MS = 1_000;
const MB = 1024 * 1024;

function config(fakeUrl: string): string {
  return (
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\n` +
    `base_url = "${fakeUrl}"\nmodels = ["fake-model"]\n[gateway]\nrate_limit_per_minute = 100000000\n` +
    `rate_limit_per_token_per_minute = 100000000\n`
  );
}

/** One normal turn; its latency in ms, or NaN when it did not answer with the fake's echo. */
async function turn(gw: HostileGateway, session: string): Promise<number> {
  const t0 = performance.now();
  const response = await gw.get(`/api/sessions/${session}/message`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "hello after the attack" }),
  });
  const text = await response.text();
  return response.status === 200 && text.includes("echo: hello after the attack") ? performance.now() - t0 : NaN;
}

const rssMb = (pid: number) => (vmRssBytes(pid) ?? NaN) / MB;

/** User + system CPU time of a process (all its threads), in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function runScenario(
  s: Scenario,
  { binary, root, tmp }: { binary: string; root: string; tmp: string },
  fakeUrl: string,
): Promise<BenchRow[]> {
  const logFile = join(tmp, `${s.name.replace(/\W+/g, "-")}.log`);
  const gw = await startHostileGateway({
    binary,
    plugin: s.plugin,
    config: config(fakeUrl),
    stderrFile: logFile,
    ...(s.wasm ? { extraPlugins: [LOOP_TOOL(root)] } : {}),
  });
  const rows: BenchRow[] = [];
  const row = (r: Omit<BenchRow, "suite">) => rows.push({ suite: "hostile", ...r, name: `${s.name}: ${r.name}` });
  try {
    if (Number.isNaN(await turn(gw, "warm-up"))) throw new Error("the warm-up turn failed");
    const baseline = rssMb(gw.proc.pid);
    const cpuBefore = cpuMs(gw.proc.pid);
    const prober = new HealthProber(gw.url);
    let health: Awaited<ReturnType<HealthProber["stop"]>> | null = null;
    const stopProbe = async () => void (health ??= await prober.stop());
    await Bun.sleep(200);
    const outcome = await s.attack({ gw, stopProbe, root });
    const cpu = outcome.gatewayGone ? NaN : cpuMs(gw.proc.pid) - cpuBefore;
    if (!outcome.gatewayGone) await Bun.sleep(SETTLE_MS);
    await stopProbe();
    const h = health!;
    const probes = `${h.count} probes, ${h.failures} failed`;
    const healthTarget = { op: "<=" as const, value: HEALTH_P99_TARGET_MS };
    row({ name: "/health p99", value: h.p99, unit: "ms", target: healthTarget, note: probes });
    row({ name: "/health max", value: h.max, unit: "ms" });
    for (const r of outcome.rows) row(r);
    if (!outcome.gatewayGone) row({ name: "gateway CPU during the attack (all threads)", value: cpu, unit: "ms" });
    if (!outcome.gatewayGone) {
      const latency = await turn(gw, "after");
      row({ name: "normal turn after", value: latency, unit: "ms", target: { op: "<=", value: TURN_TARGET_MS } });
      if (s.rssTargetMb !== undefined) {
        const growth = rssMb(gw.proc.pid) - baseline;
        const target = { op: "<=" as const, value: s.rssTargetMb };
        const note = `baseline ${baseline.toFixed(0)} MB`;
        row({ name: "gateway RSS after - before", value: growth, unit: "MB", target, note });
      }
      row({ name: "gateway log written", value: statSync(logFile).size / MB, unit: "MB" });
    }
  } finally {
    await gw.stop();
  }
  return rows;
}

const suite: BenchSuite = async ({ root, binary, tmp, quick }) => {
  const fake = await startStandaloneFake(0);
  // The short pass runs the floor scenario alone: the gateway, the prober and a turn, without an attack.
  const only = quick ? "no attack" : process.env.PRX_BENCH_HOSTILE;
  const rows: BenchRow[] = [];
  try {
    for (const s of [...SCENARIOS, ...HOST_CALL_SCENARIOS, connectionFlood, DEEP_JSON].filter((x) => !only || x.name.includes(only))) {
      const started = performance.now();
      try {
        rows.push(...(await runScenario(s, { binary, root, tmp }, fake.url)));
      } catch (error) {
        rows.push({ suite: "hostile", name: `${s.name}: failed`, value: NaN, unit: "count", note: String(error) });
      }
      console.log(`  ${s.name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    if (!only || "redis outage".includes(only)) rows.push(...(await redisOutageRows({ binary, tmp }, fake.url)));
  } finally {
    await fake.stop();
  }
  return rows;
};

export default suite;

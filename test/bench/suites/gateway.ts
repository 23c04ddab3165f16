/**
 * Issue 3 targets: `prx gateway` cold start to the first 200 on /health, idle RSS, /health req/s, and the
 * gateway's own overhead per turn through /v1/chat/completions at concurrency 1 and 16.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI } from "../../fakes/openai-server.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

const FAKE_LATENCY_MS = 20;
const COLD_RUNS = 10;
const IDLE_MS = 3000;
const LOAD_SECONDS = 3;
const LOAD_CONNECTIONS = 32;
const TURNS_SEQUENTIAL = 150;
const TURNS_PER_WORKER = 25;
const CONCURRENCY = 16;

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

function env(tmp: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmp };
}

async function startGateway(
  binary: string,
  ws: string,
  tmp: string,
): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string; ms: number }> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const proc = Bun.spawn([binary, "gateway", "--port", String(port), "-w", ws], {
    env: env(tmp),
    stdout: "ignore",
    stderr: "inherit",
  });
  const deadline = started + 10_000;
  for (;;) {
    const status = await fetch(`${url}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (performance.now() > deadline || proc.exitCode !== null)
      throw new Error(`gateway did not become healthy (exit ${proc.exitCode})`);
    await Bun.sleep(1);
  }
  return { proc, url, ms: performance.now() - started };
}

async function stopGateway(proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  proc.kill("SIGTERM");
  await proc.exited;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.replace(/\D+/g, "")) / 1024;
}

async function healthRps(url: string): Promise<{ rps: number; tool: string }> {
  const wrk = Bun.which("wrk");
  if (wrk) {
    const run = Bun.spawnSync([wrk, "-t1", `-c${LOAD_CONNECTIONS}`, `-d${LOAD_SECONDS}s`, `${url}/health`]);
    const match = /Requests\/sec:\s+([\d.]+)/.exec(run.stdout.toString());
    if (match) return { rps: Number(match[1]), tool: `wrk -c${LOAD_CONNECTIONS}` };
  }
  let done = 0;
  const end = performance.now() + LOAD_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: LOAD_CONNECTIONS }, async () => {
      while (performance.now() < end) {
        await (await fetch(`${url}/health`)).arrayBuffer();
        done++;
      }
    }),
  );
  return { rps: done / LOAD_SECONDS, tool: `fetch x${LOAD_CONNECTIONS}` };
}

/** Latencies of `count` requests per worker over `workers` concurrent workers. */
async function latencies(workers: number, count: number, once: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        await once();
        out.push(performance.now() - started);
      }
    }),
  );
  return out;
}

const suite: BenchSuite = async ({ binary, tmp }) => {
  const rows: BenchRow[] = [];
  const fake = startFakeOpenAI({ latencyMs: FAKE_LATENCY_MS });
  try {
    writeFileSync(
      join(tmp, "config.toml"),
      `default_provider = "fake"\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${fake.url}"\n` +
        `models = ["fake-model"]\n[gateway]\nrate_limit_per_minute = 100000000\nrate_limit_per_token_per_minute = 100000000\n`,
    );
    const created = Bun.spawnSync([binary, "gateway", "token", "create", "--name", "bench", "-w", tmp], {
      env: env(tmp),
    });
    if (created.exitCode !== 0) throw new Error(`token create failed: ${created.stderr.toString()}`);
    const token = created.stdout.toString().trim();

    await stopGateway((await startGateway(binary, tmp, tmp)).proc); // warm the page cache
    const cold: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const run = await startGateway(binary, tmp, tmp);
      cold.push(run.ms);
      await stopGateway(run.proc);
    }
    rows.push({
      suite: "gateway",
      name: `cold start to first 200 on /health (median of ${COLD_RUNS})`,
      value: stats(cold).p50,
      unit: "ms",
      target: { op: "<=", value: 60 },
    });

    const { proc, url } = await startGateway(binary, tmp, tmp);
    try {
      await Bun.sleep(IDLE_MS);
      rows.push({
        suite: "gateway",
        name: `idle RSS after ${IDLE_MS / 1000} s`,
        value: rssMb(proc.pid),
        unit: "MB",
        target: { op: "<=", value: 60 },
      });

      const health = await healthRps(url);
      rows.push({
        suite: "gateway",
        name: `/health throughput (${health.tool}, ${LOAD_SECONDS} s)`,
        value: health.rps,
        unit: "req/s",
      });

      const body = JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "bench turn" }] });
      const viaGateway = async () => {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        });
        if (response.status !== 200) throw new Error(`gateway turn: HTTP ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      };
      const direct = async () => {
        const response = await fetch(`${fake.url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "bench turn" }] }),
        });
        await response.arrayBuffer();
      };
      await latencies(4, 10, viaGateway); // warm-up: JIT, route compilation, SQLite caches
      for (const [workers, count] of [
        [1, TURNS_SEQUENTIAL],
        [CONCURRENCY, TURNS_PER_WORKER],
      ] as const) {
        const fakeOnly = stats(await latencies(workers, count, direct));
        const gateway = stats(await latencies(workers, count, viaGateway));
        const ms = (s: { p50: number; p99: number }) => `p50 ${s.p50.toFixed(1)} / p99 ${s.p99.toFixed(1)} ms`;
        const note = `gateway ${ms(gateway)}; fake alone ${ms(fakeOnly)}`;
        rows.push({
          suite: "gateway",
          name: `turn overhead p50 at concurrency ${workers}`,
          value: gateway.p50 - fakeOnly.p50,
          unit: "ms",
          target: { op: "<=", value: 1 },
          note,
        });
        rows.push({
          suite: "gateway",
          name: `turn overhead p99 at concurrency ${workers}`,
          value: gateway.p99 - fakeOnly.p99,
          unit: "ms",
          ...(workers === CONCURRENCY ? { target: { op: "<=" as const, value: 5 } } : {}),
          note,
        });
      }
    } finally {
      await stopGateway(proc);
    }
  } finally {
    await fake.stop();
  }
  return rows;
};

export default suite;

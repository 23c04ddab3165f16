/**
 * Targets: `prx gateway` cold start to the first 200 on /health, idle RSS, /health req/s, and the
 * gateway's own overhead per turn through /v1/chat/completions at concurrency 1 and 16, and the Responses wire's
 * cost beside it (responses-overhead.ts), and a config.toml edit applied or refused by the running gateway
 * (config-edit.ts).
 *
 * Turn overhead per turn, minus the fake's own time for that turn: see ../turn-overhead.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnAnnouncing, startStandaloneFake } from "../announce.ts";
import { freshCopy } from "../floors.ts";
import { buildHello, timeToFirst200 } from "../hello-start.ts";
import { throughputDir, throughputRows } from "../throughput.ts";
import { turnOverheadRows } from "../turn-overhead.ts";
import { responsesOverheadRows } from "../responses-overhead.ts";
import { configEditRows } from "../config-edit.ts";
import { createToken, env, freePort, LOG_FILE, startGateway, stopGateway, writeConfig } from "../gateway-process.ts";
import { wrkCrossCheckRows } from "../wrk-cross-check.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

const FAKE_LATENCY_MS = 20;
let COLD_RUNS = 10;
let IDLE_MS = 3000;
let LOAD_SECONDS = 3;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = { COLD_RUNS: 2, IDLE_MS: 500, LOAD_SECONDS: 1 };
const LOAD_CONNECTIONS = 32;
/** The gateway's cold start may take at most this many times a compiled Bun.serve hello's, measured in the same run. */
const START_TARGET_RATIO = 2;

/** A bare Bun.serve in its own process forwarding each request body to `upstream` (the transport floor). */
const PROXY_SOURCE = `
const upstream = process.argv[2];
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(request) {
  const body = await request.text();
  const answer = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
  return new Response(await answer.text(), { headers: { "content-type": "application/json" } });
} });
console.log("http://127.0.0.1:" + server.port);
`;

async function startBareProxy(
  tmp: string,
  upstream: string,
): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }> {
  const script = join(tmp, "bare-proxy.ts");
  writeFileSync(script, PROXY_SOURCE);
  return spawnAnnouncing([process.execPath, script, upstream], "bare proxy");
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

const suite: BenchSuite = async ({ binary, tmp, quick }) => {
  if (quick) ({ COLD_RUNS, IDLE_MS, LOAD_SECONDS } = QUICK);
  const rows: BenchRow[] = [];
  const fake = await startStandaloneFake(FAKE_LATENCY_MS);
  let upstreamBody = "";
  try {
    writeConfig(tmp, fake.url);
    const token = createToken(binary, tmp, tmp);

    // both sides of the alternation from files written just now (floors.ts, freshCopy)
    const gateway = freshCopy(binary, tmp, "prx-cold");
    const hello = freshCopy(await buildHello(tmp), tmp, "hello-cold");
    await stopGateway((await startGateway(gateway, tmp, tmp)).proc); // warm the page cache
    const cold: number[] = [];
    const helloCold: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const run = await startGateway(gateway, tmp, tmp);
      cold.push(run.ms);
      await stopGateway(run.proc);
      const port = freePort();
      const floor = await timeToFirst200([hello, String(port)], `http://127.0.0.1:${port}/`, env(tmp));
      helloCold.push(floor.ms);
      await stopGateway(floor.proc);
    }
    const start = stats(cold).p50;
    const helloStart = stats(helloCold).p50;
    rows.push({
      suite: "gateway",
      name: `cold start to first 200 on /health (median of ${COLD_RUNS})`,
      value: start,
      unit: "ms",
      target: { op: "<=", value: 60 },
    });
    rows.push({
      suite: "gateway",
      name: `  compiled Bun.serve hello: cold start to first 200 (median of ${COLD_RUNS}, alternating)`,
      value: helloStart,
      unit: "ms",
    });
    rows.push({
      suite: "gateway",
      name: "gateway cold start / compiled Bun.serve hello",
      value: start / helloStart,
      unit: "count",
      target: { op: "<=", value: START_TARGET_RATIO },
      note: `gateway ${start.toFixed(1)} ms, hello ${helloStart.toFixed(1)} ms`,
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

      const bare = await startBareProxy(tmp, `${fake.url}/chat/completions`);
      try {
        rows.push(
          ...(await turnOverheadRows({ gatewayUrl: url, gatewayPid: proc.pid, token, fake, bareUrl: bare.url, quick })),
        );
        rows.push(...(await responsesOverheadRows({ gatewayUrl: url, gatewayPid: proc.pid, token, fake, quick })));
      } finally {
        bare.proc.kill();
        await bare.proc.exited;
      }
      rows.push(...(await configEditRows({ gatewayUrl: url, token, workspace: tmp, quick })));
      const log = readFileSync(join(tmp, LOG_FILE), "utf8");
      const logged = log.split("\n").filter((line) => line.includes("[gateway.access]"));
      if (logged.length === 0) throw new Error("the gateway printed no access-log lines");
      const turn = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "bench turn" }] }),
      });
      await turn.arrayBuffer();
      upstreamBody = JSON.stringify(await fake.lastBody());
    } finally {
      await stopGateway(proc);
    }
    rows.push(
      ...(await throughputRows({
        binary,
        dir: throughputDir(tmp),
        token: (ws) => createToken(binary, ws, tmp),
        startGateway,
        writeConfig,
        quick,
      })),
    );
    const dir = join(tmp, "wrk");
    mkdirSync(dir);
    rows.push(
      ...(await wrkCrossCheckRows({
        binary,
        dir,
        upstreamBody,
        fakeLatencyMs: FAKE_LATENCY_MS,
        startGateway,
        writeConfig,
        quick,
      })),
    );
  } finally {
    await fake.stop();
  }
  return rows;
};

export default suite;

/**
 * A cross-check of the turn overhead at concurrency 16 with nothing of Bun on the client side: wrk (C) drives
 * the gateway and, alternately, the fake directly (in its own process, as in turn-overhead.ts), with the fake's
 * fixed latency and with it spread (see JITTER_MS). The main measure's client is a Bun process whose own work
 * shares the 2 cores; this one's client costs far less CPU per request. No per-turn matching here (wrk cannot see
 * the fake's records): gateway p50 minus the direct path's p50, and p99 minus p99.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startStandaloneFake } from "./announce.ts";
import { describeWarmup, warmUp } from "./jit-settle.ts";
import type { BenchRow } from "./types.ts";

const CONNECTIONS = 16;
const SECONDS = 3;
const ROUNDS = 3;
/**
 * The second check spreads the fake's answers over +-2 ms (independent clients): with a fixed delay, 16 answers
 * fall due in the same timer tick and the gateway handles them back to back, a burst real traffic rarely makes.
 */
const JITTER_MS = 4;

export interface CrossCheckTargets {
  binary: string;
  /** A fresh directory for the workspace, scripts and logs. */
  dir: string;
  /** The JSON body the gateway sends upstream for one turn (sent to the fake directly). */
  upstreamBody: string;
  fakeLatencyMs: number;
  startGateway(binary: string, ws: string, tmp: string): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }>;
  /** Writes the workspace config pointing the gateway at the fake. */
  writeConfig(dir: string, fakeUrl: string): void;
  /** The short pass: the fixed-latency check alone, one warm-up run and one round. */
  quick?: boolean;
}

/** wrk's latency distribution for POSTs of `body`; [p50, p99] in ms. */
function wrk(tool: string, dir: string, name: string, url: string, body: string, headers: Record<string, string>) {
  const script = join(dir, `${name}.lua`);
  const lines = [`wrk.method = "POST"`, `wrk.body = ${JSON.stringify(body)}`];
  for (const [key, value] of Object.entries(headers))
    lines.push(`wrk.headers[${JSON.stringify(key)}] = ${JSON.stringify(value)}`);
  writeFileSync(script, lines.join("\n") + "\n");
  const out = Bun.spawnSync([
    tool,
    "-t1",
    `-c${CONNECTIONS}`,
    `-d${SECONDS}s`,
    "--latency",
    "-s",
    script,
    url,
  ]).stdout.toString();
  const at = (p: string) => {
    const m = new RegExp(`${p}%\\s+([\\d.]+)(us|ms|s)\\b`).exec(out);
    if (!m) throw new Error(`wrk printed no ${p}% latency for ${url}: ${out.slice(0, 300)}`);
    return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1);
  };
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? "0");
  return { p50: at("50"), p99: at("99"), requests };
}

/** One fake (fixed or jittered latency), a gateway in front of it, wrk against both in alternating rounds. */
async function crossCheck(t: CrossCheckTargets, tool: string, jitterMs: number): Promise<BenchRow[]> {
  const fake = await startStandaloneFake(t.fakeLatencyMs, jitterMs);
  try {
    t.writeConfig(t.dir, fake.url);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: t.dir };
    const created = Bun.spawnSync([t.binary, "gateway", "token", "create", "--name", "wrk", "-w", t.dir], { env });
    if (created.exitCode !== 0) throw new Error(`token create failed: ${created.stderr.toString()}`);
    const token = created.stdout.toString().trim();
    const gateway = await t.startGateway(t.binary, t.dir, t.dir);
    try {
      const body = JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "bench turn" }] });
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const viaGateway = () => wrk(tool, t.dir, "gateway", `${gateway.url}/v1/chat/completions`, body, headers);
      const direct = () =>
        wrk(tool, t.dir, "direct", `${fake.url}/chat/completions`, t.upstreamBody, {
          "content-type": "application/json",
        });
      // Steady state, as in turn-overhead.ts; the fake forgets each run's records.
      const warmup = await warmUp(
        gateway.proc.pid,
        async () => {
          const served = viaGateway().requests;
          await fake.handled();
          return served;
        },
        t.quick ?? false,
      );
      const g50: number[] = [];
      const g99: number[] = [];
      const d50: number[] = [];
      const d99: number[] = [];
      for (let round = 0; round < (t.quick ? 1 : ROUNDS); round++) {
        const g = viaGateway();
        g50.push(g.p50);
        g99.push(g.p99);
        const d = direct();
        d50.push(d.p50);
        d99.push(d.p99);
        await fake.handled();
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
      const note =
        `wrk -c${CONNECTIONS}, ${ROUNDS} alternating rounds of ${SECONDS} s; gateway p50 ${median(g50).toFixed(2)} / ` +
        `p99 ${median(g99).toFixed(2)} ms, direct p50 ${median(d50).toFixed(2)} / p99 ${median(d99).toFixed(2)} ms; ` +
        describeWarmup(warmup);
      const latency = jitterMs > 0 ? `${t.fakeLatencyMs} +- ${jitterMs / 2} ms` : `${t.fakeLatencyMs} ms fixed`;
      const at = `at concurrency ${CONNECTIONS} (wrk client, fake in its own process, latency ${latency})`;
      return [
        {
          suite: "gateway",
          name: `  cross-check: gateway p50 - direct p50 ${at}`,
          value: median(g50) - median(d50),
          unit: "ms",
          note,
        },
        {
          suite: "gateway",
          name: `  cross-check: gateway p99 - direct p99 ${at}`,
          value: median(g99) - median(d99),
          unit: "ms",
          note,
        },
      ];
    } finally {
      gateway.proc.kill("SIGTERM");
      await gateway.proc.exited;
    }
  } finally {
    await fake.stop();
  }
}

export async function wrkCrossCheckRows(t: CrossCheckTargets): Promise<BenchRow[]> {
  const tool = Bun.which("wrk");
  if (!tool) return [];
  return [...(await crossCheck(t, tool, 0)), ...(t.quick ? [] : await crossCheck(t, tool, JITTER_MS))];
}

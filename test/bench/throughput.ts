/**
 * Answer rate with 8 clients: through the gateway (/v1/chat/completions, one turn per request) against the fake
 * provider's own rate measured alone (the same upstream body posted to it directly), in the same run, in alternating
 * blocks. The fake answers at once (no latency), so the rate is bounded by CPU: the fake, the gateway and the load
 * generator share this machine's cores, and the ratio says how much of the fake's rate survives the extra hop
 * through prx (target >= 0.25).
 */
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { startStandaloneFake } from "./announce.ts";
import type { BenchRow } from "./types.ts";

const CLIENTS = 8;
const BLOCK_MS = 2000;
const ROUNDS = 3;
const WARMUP_TURNS = 3000;
export const THROUGHPUT_TARGET_RATIO = 0.25;
const QUICK = { blockMs: 500, rounds: 1, warmupTurns: 200 };

export interface ThroughputTargets {
  binary: string;
  /** A fresh directory for the workspace. */
  dir: string;
  token: (ws: string) => string;
  startGateway(binary: string, ws: string, tmp: string): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }>;
  writeConfig(dir: string, fakeUrl: string): void;
  /** The short pass: QUICK's warm-up, block length and rounds. */
  quick?: boolean;
}

/** Requests answered per second by CLIENTS clients looping on `once` for `blockMs`. */
async function rate(once: () => Promise<void>, blockMs: number): Promise<number> {
  let done = 0;
  const started = performance.now();
  const end = started + blockMs;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        await once();
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

export async function throughputRows(t: ThroughputTargets): Promise<BenchRow[]> {
  const { blockMs, rounds, warmupTurns } = t.quick ? QUICK : { blockMs: BLOCK_MS, rounds: ROUNDS, warmupTurns: WARMUP_TURNS };
  const fake = await startStandaloneFake(0);
  mkdirSync(t.dir, { recursive: true });
  t.writeConfig(t.dir, fake.url);
  const token = t.token(t.dir);
  const gateway = await t.startGateway(t.binary, t.dir, t.dir);
  try {
    let seq = 0;
    const viaGateway = async () => {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: `rate ${seq++}` }] }),
      });
      if (response.status !== 200) throw new Error(`gateway turn: HTTP ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    };
    for (let i = 0; i < warmupTurns / CLIENTS; i++) await Promise.all(Array.from({ length: CLIENTS }, viaGateway));
    const upstream = JSON.stringify(await fake.lastBody());
    const direct = async () => {
      const response = await fetch(`${fake.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: upstream,
      });
      if (response.status !== 200) throw new Error(`fake: HTTP ${response.status}`);
      await response.arrayBuffer();
    };
    const alone: number[] = [];
    const through: number[] = [];
    for (let round = 0; round < rounds; round++) {
      alone.push(await rate(direct, blockMs));
      through.push(await rate(viaGateway, blockMs));
      await fake.handled(); // drop the fake's records
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const ratio = mean(through) / mean(alone);
    const note = `through prx ${mean(through).toFixed(0)} req/s; fake alone ${mean(alone).toFixed(0)} req/s (${CLIENTS} clients, ${rounds} alternating blocks of ${blockMs} ms)`;
    return [
      { suite: "gateway", name: `${CLIENTS} clients: answers/s through prx`, value: mean(through), unit: "req/s", note },
      { suite: "gateway", name: `${CLIENTS} clients: fake provider alone`, value: mean(alone), unit: "req/s", note },
      {
        suite: "gateway",
        name: `${CLIENTS} clients: through prx / fake alone`,
        value: ratio,
        unit: "count",
        target: { op: ">=", value: THROUGHPUT_TARGET_RATIO },
        note,
      },
    ];
  } finally {
    gateway.proc.kill("SIGTERM");
    await gateway.proc.exited;
    await fake.stop();
  }
}

/** The workspace for the throughput gateway lives beside the others. */
export function throughputDir(tmp: string): string {
  return join(tmp, "throughput");
}

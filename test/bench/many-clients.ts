/**
 * Many clients at once through /v1/chat/completions, answered as JSON and streamed: at each count of concurrent
 * clients, the p50 latency through prx minus the p50 of as many clients posting the upstream body to the fake
 * directly (alternating blocks, the same load generator), and the answers per second of each. The fake answers after
 * FAKE_LATENCY_MS, as a provider does; streamed, it sends its answer as SSE chunks and prx streams it on.
 * The target: streaming costs at most STREAM_TO_JSON_TARGET times the overhead of the JSON answer at the most clients.
 */
import { mkdirSync } from "node:fs";
import { startStandaloneFake, type StandaloneFake } from "./announce.ts";
import { growthRows } from "./growth.ts";
import type { ThroughputTargets } from "./throughput.ts";
import { stats, type BenchRow } from "./types.ts";

const SUITE = "growth";
const FAKE_LATENCY_MS = 20;
const CLIENT_COUNTS = { full: [16, 64, 256], quick: [16, 64] } as const;
const BLOCK_MS = { full: 3000, quick: 600 } as const;
const ROUNDS = { full: 2, quick: 1 } as const;
const WARMUP_TURNS = { full: 3000, quick: 200 } as const;
export const STREAM_TO_JSON_TARGET = 2;
/** A cost the growth fit can take: an overhead lost in the noise counts as this (ms). */
const OVERHEAD_FLOOR_MS = 0.01;

type Mode = "json" | "stream";

interface Block {
  latencies: number[];
  perSecond: number;
}

/** `clients` clients looping on `once` for `blockMs`: each request's latency and the answers per second. */
async function block(clients: number, blockMs: number, once: () => Promise<void>): Promise<Block> {
  const latencies: number[] = [];
  const started = performance.now();
  const end = started + blockMs;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await once();
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, perSecond: latencies.length / ((performance.now() - started) / 1000) };
}

async function post(url: string, body: string, headers: Record<string, string>, what: string): Promise<void> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  if (response.status !== 200) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

interface Measured {
  overheadMs: number;
  throughPerSecond: number;
  alonePerSecond: number;
}

export async function manyClientsRows(t: ThroughputTargets): Promise<BenchRow[]> {
  const mode = t.quick ? "quick" : "full";
  const fake: StandaloneFake = await startStandaloneFake(FAKE_LATENCY_MS);
  mkdirSync(t.dir, { recursive: true });
  t.writeConfig(t.dir, fake.url);
  const token = t.token(t.dir);
  const gateway = await t.startGateway(t.binary, t.dir, t.dir);
  try {
    let seq = 0;
    const turnBody = (streamed: boolean) =>
      JSON.stringify({ model: "fake-model", ...(streamed ? { stream: true } : {}), messages: [{ role: "user", content: `many ${seq++}` }] });
    const through = (streamed: boolean) => () =>
      post(`${gateway.url}/v1/chat/completions`, turnBody(streamed), { authorization: `Bearer ${token}` }, "gateway turn");
    const upstream: Record<Mode, string> = { json: "", stream: "" };
    for (const streamed of [false, true]) {
      await block(16, 1, through(streamed));
      for (let i = 0; i < WARMUP_TURNS[mode] / 16; i++) await Promise.all(Array.from({ length: 16 }, through(streamed)));
      upstream[streamed ? "stream" : "json"] = JSON.stringify(await fake.lastBody());
    }
    const alone = (m: Mode) => () => post(`${fake.url}/chat/completions`, upstream[m], {}, "fake");
    const measured = new Map<string, Measured>();
    for (const clients of CLIENT_COUNTS[mode]) {
      for (const m of ["json", "stream"] as const) {
        const direct: Block[] = [];
        const via: Block[] = [];
        for (let round = 0; round < ROUNDS[mode]; round++) {
          direct.push(await block(clients, BLOCK_MS[mode], alone(m)));
          via.push(await block(clients, BLOCK_MS[mode], through(m === "stream")));
          await fake.handled(); // drop the fake's records
        }
        const p50 = (blocks: Block[]) => stats(blocks.flatMap((b) => b.latencies)).p50;
        const mean = (blocks: Block[]) => blocks.reduce((sum, b) => sum + b.perSecond, 0) / blocks.length;
        measured.set(`${m}@${clients}`, {
          overheadMs: Math.max(OVERHEAD_FLOOR_MS, p50(via) - p50(direct)),
          throughPerSecond: mean(via),
          alonePerSecond: mean(direct),
        });
      }
    }
    const rows: BenchRow[] = [];
    const sizes = CLIENT_COUNTS[mode];
    for (const m of ["json", "stream"] as const) {
      rows.push(
        ...(await growthRows({
          suite: SUITE,
          name: `concurrent clients, ${m === "json" ? "JSON" : "streamed"} answers: overhead p50 over the fake alone`,
          per: "clients",
          unit: "ms",
          sizes,
          grow: () => undefined,
          cost: async (size) => measured.get(`${m}@${size}`)!.overheadMs,
          note: `fake answering after ${FAKE_LATENCY_MS} ms; ${ROUNDS[mode]} alternating blocks of ${BLOCK_MS[mode]} ms per count`,
        })),
      );
    }
    const most = sizes.at(-1)!;
    const json = measured.get(`json@${most}`)!;
    const streamed = measured.get(`stream@${most}`)!;
    rows.push({
      suite: SUITE,
      name: `${most} clients: streamed overhead / JSON overhead`,
      value: streamed.overheadMs / json.overheadMs,
      unit: "count",
      target: { op: "<=", value: STREAM_TO_JSON_TARGET },
      note: `p50 overhead ${streamed.overheadMs.toFixed(2)} / ${json.overheadMs.toFixed(2)} ms`,
    });
    for (const [m, of] of [["JSON", json], ["streamed", streamed]] as const) {
      rows.push({
        suite: SUITE,
        name: `${most} clients, ${m}: answers/s through prx / the fake alone`,
        value: of.throughPerSecond / of.alonePerSecond,
        unit: "count",
        note: `${of.throughPerSecond.toFixed(0)} / ${of.alonePerSecond.toFixed(0)} answers/s`,
      });
    }
    return rows;
  } finally {
    gateway.proc.kill("SIGTERM");
    await gateway.proc.exited;
    await fake.stop();
  }
}

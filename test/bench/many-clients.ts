/**
 * Many clients at once through /v1/chat/completions, answered as JSON and streamed: at each count of concurrent
 * clients, the p50 latency through prx minus the p50 of as many clients posting the upstream body to the fake
 * directly (alternating blocks, the same load generator), and the answers per second of each. The fake answers after
 * FAKE_LATENCY_MS, as a provider does; streamed, it sends its answer as SSE chunks and prx streams it on.
 * The target: streaming costs at most STREAM_TO_JSON_TARGET times the overhead of the JSON answer at the most clients.
 */
import { mkdirSync } from "node:fs";
import http from "node:http";
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
/**
 * Clients come from this many loopback addresses (the gateway admits at most CONNECTIONS_PER_ADDRESS_MAX requests in
 * flight from one address), the direct series the same way, each address with its own keep-alive connections.
 */
const CLIENT_ADDRESSES = 8;
const agents = Array.from({ length: CLIENT_ADDRESSES }, () => new http.Agent({ keepAlive: true, maxSockets: Infinity }));
/** A cost the growth fit can take: an overhead lost in the noise counts as this (ms). */
const OVERHEAD_FLOOR_MS = 0.01;

type Mode = "json" | "stream";

interface Block {
  latencies: number[];
  perSecond: number;
}

/** `clients` clients (client i from address i) looping on `once` for `blockMs`: each request's latency and the answers per second. */
async function block(clients: number, blockMs: number, once: (client: number) => Promise<void>): Promise<Block> {
  const latencies: number[] = [];
  const started = performance.now();
  const end = started + blockMs;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < end) {
        const t = performance.now();
        await once(client);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, perSecond: latencies.length / ((performance.now() - started) / 1000) };
}

/** POST `body` to `url` from loopback address 127.0.0.(10 + client % CLIENT_ADDRESSES) and read the whole answer. */
function post(client: number, url: string, body: string, headers: Record<string, string>, what: string): Promise<void> {
  const target = new URL(url);
  const slot = client % CLIENT_ADDRESSES;
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        localAddress: `127.0.0.${10 + slot}`,
        agent: agents[slot],
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => (response.statusCode === 200 ? resolve() : reject(new Error(`${what}: HTTP ${response.statusCode} ${text}`))));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
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
    const through = (streamed: boolean) => (client: number) =>
      post(client, `${gateway.url}/v1/chat/completions`, turnBody(streamed), { authorization: `Bearer ${token}` }, "gateway turn");
    const upstream: Record<Mode, string> = { json: "", stream: "" };
    for (const streamed of [false, true]) {
      await block(16, 1, through(streamed));
      for (let i = 0; i < WARMUP_TURNS[mode] / 16; i++) await Promise.all(Array.from({ length: 16 }, (_, c) => through(streamed)(c)));
      upstream[streamed ? "stream" : "json"] = JSON.stringify(await fake.lastBody());
    }
    const alone = (m: Mode) => (client: number) => post(client, `${fake.url}/chat/completions`, upstream[m], {}, "fake");
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

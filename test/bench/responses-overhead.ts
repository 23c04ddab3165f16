/**
 * The Responses wire against chat completions, A/B back to back on one warm gateway: the same user text through
 * POST /v1/chat/completions and POST /v1/responses (store: false, and stored), in short blocks of rotating order
 * so the series see the same machine state. Each turn's latency minus the fake's own time for it (matched by the
 * unique text, as in turn-overhead.ts); the row is the difference of the p50s (the network floor cancels). Beside
 * it, the gateway's CPU time per turn of each series (every thread's run time: proc-cpu.ts): on a loaded
 * machine latencies are noise, the CPU a turn costs much less so. The CPU row is the median, over the rounds, of each
 * round's difference between its Responses block and its chat completions block (run next to each other): a
 * collection or a compilation burst of the whole process lands in one block of one round and moves that round alone,
 * where a difference of the series' totals took it whole (the same code read -0.150 and +0.258 ms in two runs that
 * way). The totals' difference is in the note.
 */
import type { StandaloneFake } from "./announce.ts";
import { cpuBetween, readCpu } from "./proc-cpu.ts";
import { describeWarmup, warmUp } from "./jit-settle.ts";
import { percentile, stats, type BenchRow } from "./types.ts";

const TURNS_PER_SERIES = 1200;
/** Concurrent workers and turns per worker of one warm-up block (each series in turn), repeated until the JIT settles. */
const WARMUP_WORKERS = 16;
const WARMUP_PER_WORKER = 20;
/** Rounds of one block per series, each in rotated order: the CPU row is the median of the rounds' differences. */
const ROUNDS = 12;
/** The Responses wire may cost at most this much more per turn than chat completions (p50, concurrency 1). */
const TARGET_DELTA_P50_MS = 0.2;

export interface ResponsesTargets {
  gatewayUrl: string;
  /** The gateway's process id (its CPU time per turn is read from /proc). */
  gatewayPid: number;
  token: string;
  fake: StandaloneFake;
  quick?: boolean;
}

export async function responsesOverheadRows({ gatewayUrl, gatewayPid, token, fake, quick = false }: ResponsesTargets): Promise<BenchRow[]> {
  let seq = 0;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const send = (path: string, body: (text: string) => unknown) => async () => {
    const text = `bench wire ${seq++}`;
    const response = await fetch(`${gatewayUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body(text)) });
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    return text;
  };
  const series = [
    { name: "chat completions", once: send("/v1/chat/completions", (text) => ({ model: "fake-model", messages: [{ role: "user", content: text }] })) },
    { name: "responses, store: false", once: send("/v1/responses", (text) => ({ model: "fake-model", input: text, store: false })) },
    { name: "responses, stored", once: send("/v1/responses", (text) => ({ model: "fake-model", input: text })) },
  ];
  // the chat completions path is warm already (turn-overhead.ts); the Responses path gets its own warm-up
  const warmup = await warmUp(gatewayPid, async () => {
    let served = 0;
    for (const { once } of series) {
      await Promise.all(
        Array.from({ length: WARMUP_WORKERS }, async () => {
          for (let i = 0; i < WARMUP_PER_WORKER; i++, served++) await once();
        }),
      );
    }
    await fake.handled();
    return served;
  }, quick);

  const samples: Array<Array<{ ms: number; text: string }>> = series.map(() => []);
  const cpu = series.map(() => 0);
  /** Per round, each series' CPU per turn in that round's block (us). */
  const perRound: number[][] = [];
  const handled = new Map<string, number>();
  const rounds = quick ? 1 : ROUNDS;
  const perBlock = Math.ceil((quick ? 30 : TURNS_PER_SERIES) / rounds);
  for (let round = 0; round < rounds; round++) {
    const blocks = series.map(() => 0);
    for (let k = 0; k < series.length; k++) {
      const which = (round + k) % series.length;
      const before = readCpu(gatewayPid);
      for (let i = 0; i < perBlock; i++) {
        const started = performance.now();
        const text = await series[which]!.once();
        samples[which]!.push({ ms: performance.now() - started, text });
      }
      const used = cpuBetween(before, readCpu(gatewayPid));
      cpu[which]! += used;
      blocks[which] = used / perBlock / 1000;
    }
    perRound.push(blocks);
    for (const [text, ms] of await fake.handled()) handled.set(text, ms);
  }
  const own = samples.map((list) =>
    stats(
      list.map((sample) => {
        const ms = handled.get(sample.text);
        if (ms === undefined) throw new Error(`the fake has no record of "${sample.text}"`);
        return sample.ms - ms;
      }),
    ),
  );
  const [chat, unstored, stored] = own as [ReturnType<typeof stats>, ReturnType<typeof stats>, ReturnType<typeof stats>];
  const note = series.map((s, i) => `${s.name} p50 ${own[i]!.p50.toFixed(3)} / p99 ${own[i]!.p99.toFixed(3)} ms`).join("; ") + " (minus the fake's own time)";
  const cpuUs = cpu.map((ns, i) => ns / samples[i]!.length / 1000);
  const roundDelta = (k: number) => {
    const sorted = perRound.map((blocks) => blocks[k]! - blocks[0]!).sort((a, b) => a - b);
    return { p25: percentile(sorted, 25), p50: percentile(sorted, 50), p75: percentile(sorted, 75) };
  };
  const [unstoredCpu, storedCpu] = [roundDelta(1), roundDelta(2)];
  const cpuNote = (k: number) =>
    `median of ${rounds} rounds' differences (blocks of ${perBlock} turns side by side), p25-p75 ` +
    `${(roundDelta(k).p25 / 1000).toFixed(3)}-${(roundDelta(k).p75 / 1000).toFixed(3)} ms; the series' totals: ` +
    series.map((s, i) => `${s.name} ${cpuUs[i]!.toFixed(1)} us`).join("; ") +
    ` (gateway CPU per turn, every thread, ${samples[0]!.length} turns each; ${describeWarmup(warmup)})`;
  return [
    {
      suite: "gateway",
      name: "responses wire minus chat completions, gateway CPU per turn (store: false)",
      value: unstoredCpu.p50 / 1000,
      unit: "ms",
      target: { op: "<=", value: TARGET_DELTA_P50_MS },
      note: cpuNote(1),
    },
    {
      suite: "gateway",
      name: "  stored responses minus chat completions, gateway CPU per turn",
      value: storedCpu.p50 / 1000,
      unit: "ms",
      note: cpuNote(2),
    },
    {
      suite: "gateway",
      name: "responses wire minus chat completions, turn p50 at concurrency 1 (store: false)",
      value: unstored.p50 - chat.p50,
      unit: "ms",
      target: { op: "<=", value: TARGET_DELTA_P50_MS },
      note,
    },
    {
      suite: "gateway",
      name: "  stored responses minus chat completions, turn p50 at concurrency 1",
      value: stored.p50 - chat.p50,
      unit: "ms",
      note: "store: true (the default) writes the response to the workspace database once per turn",
    },
  ];
}

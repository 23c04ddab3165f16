/**
 * The gateway's own latency per turn through /v1/chat/completions against the fake provider: turn overhead at
 * concurrency 1 and 16, p50/p99, minus the fake's own latency; and the same turn through POST /v1/messages
 * (Anthropic's wire), in blocks alternating with it, with its difference to chat completions.
 *
 * Every request carries a unique text, so each gateway turn is matched with the upstream request it caused, and
 * the fake reports how long it held that request (`handledMs`: its 20 ms delay, timer lateness included). Per turn:
 *
 *   overhead = gateway latency - the fake's own time for that turn - the direct path's median network floor
 *
 * where the floor is the median of (latency - fake's own time) when the same upstream body is sent to the fake
 * directly. The same difference is also taken within each round (its gateway block against its own direct block) and
 * their median reported with each round's value, to show how far the row moves between rounds of one run. Beside it, the older measure (gateway p50/p99 minus the median of a separately timed "fake alone"
 * series), which at concurrency 16 also charges the fake's own timer jitter to the gateway, and a bare Bun.serve
 * proxy forwarding the same body (the cost of one extra HTTP hop through another process on this machine).
 *
 * The fake runs in its own process, as a provider runs on another machine, and reports its records over stdin/
 * stdout (announce.ts). Until 2026-11-30 it ran inside this process: its ~150 us of CPU per answer then sat in the
 * load generator's event loop, delaying the client's own timestamps (at concurrency 16 its "fake alone" series
 * showed 4.9 ms between p50 and p99), which the per-turn subtraction cannot remove.
 *
 * Measured in the gateway's steady state: it first serves blocks of turns until its JIT stops compiling
 * (jit-settle.ts; ~15,000 turns here), as a long-running gateway does within its first minute of traffic.
 */
import type { StandaloneFake } from "./announce.ts";
import { describeWarmup, warmUp } from "./jit-settle.ts";
import { stats, type BenchRow } from "./types.ts";

const TURNS_SEQUENTIAL = 150;
const TURNS_PER_WORKER = 150;
/** Turns per warm-up block of the gateway (at CONCURRENCY), repeated until its JIT settles (jit-settle.ts). */
const WARMUP_BLOCK_PER_WORKER = 100;
/** Warm-up of the bare proxy (a few lines of JavaScript: its JIT settles within these). */
const BARE_WARMUP = 400;
/** Each latency series is measured in this many blocks, alternating with the others. */
const ROUNDS = 3;
const CONCURRENCY = 16;
const TARGET_P50_MS = 1;
/** How much more a /v1/messages turn may cost than a /v1/chat/completions turn (p50), as the same turn on another wire. */
const TARGET_MESSAGES_EXTRA_P50_MS = 0.2;
const TARGET_P99_AT_16_MS = 5;

interface Sample {
  ms: number;
  /** The unique user text of the request (its key in the fake's records). */
  text: string;
}

/** `count` requests per worker over `workers` concurrent workers; `once` sends one and returns its text. */
async function timed(workers: number, count: number, once: () => Promise<string>): Promise<Sample[]> {
  const out: Sample[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        const text = await once();
        out.push({ ms: performance.now() - started, text });
      }
    }),
  );
  return out;
}

export interface TurnTargets {
  gatewayUrl: string;
  /** The gateway's process id (its JIT threads are watched during the warm-up). */
  gatewayPid: number;
  token: string;
  /** The fake in its own process (the gateway's provider). */
  fake: StandaloneFake;
  bareUrl: string;
  /** The short pass: one warm-up block and one round of each series. */
  quick?: boolean;
}

export async function turnOverheadRows({
  gatewayUrl,
  gatewayPid,
  token,
  fake,
  bareUrl,
  quick = false,
}: TurnTargets): Promise<BenchRow[]> {
  let seq = 0;
  const viaGateway = async () => {
    const text = `bench turn ${seq++}`;
    const response = await fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: text }] }),
    });
    if (response.status !== 200) throw new Error(`gateway turn: HTTP ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    return text;
  };
  // The same turn on Anthropic's wire: the same text reaches the fake as the last user message.
  const viaMessages = async () => {
    const text = `bench message ${seq++}`;
    const response = await fetch(`${gatewayUrl}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": token, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "fake-model", max_tokens: 1024, messages: [{ role: "user", content: text }] }),
    });
    if (response.status !== 200) throw new Error(`gateway message: HTTP ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    return text;
  };
  // What the gateway sends upstream for a turn (system prompt, tool specs): the fake alone gets the same.
  const warmup = await warmUp(gatewayPid, async () => {
    // messages first: the fake's last body, sent directly below, is then a chat completions turn's
    const served = (await timed(CONCURRENCY, WARMUP_BLOCK_PER_WORKER / 4, viaMessages)).length +
      (await timed(CONCURRENCY, WARMUP_BLOCK_PER_WORKER, viaGateway)).length;
    await fake.handled(); // forget the warm-up's records
    return served;
  }, quick);
  const upstream = (await fake.lastBody()) as { messages: { content: string }[] };
  const post = (target: string) => async () => {
    const text = `bench direct ${seq++}`;
    upstream.messages.at(-1)!.content = text;
    const headers = { "content-type": "application/json" };
    const response = await fetch(target, { method: "POST", headers, body: JSON.stringify(upstream) });
    if (response.status !== 200) throw new Error(`${target}: HTTP ${response.status}`);
    await response.arrayBuffer();
    return text;
  };
  const direct = post(`${fake.url}/chat/completions`);
  const bare = post(bareUrl);
  await timed(4, BARE_WARMUP / 4, bare);

  const rows: BenchRow[] = [];
  const row = (name: string, value: number, extra: Partial<BenchRow> = {}) =>
    rows.push({ suite: "gateway", name, value, unit: "ms", ...extra });
  for (const [workers, count] of [
    [1, TURNS_SEQUENTIAL],
    [CONCURRENCY, TURNS_PER_WORKER],
  ] as const) {
    // Short blocks in rotating order, pooled: the three see the same machine state (no drift between them).
    const kinds = [direct, bare, viaGateway, viaMessages];
    const samples: Sample[][] = [[], [], [], []];
    /** Each round's own samples of the direct path and the gateway (chat completions). */
    const rounds: Array<{ direct: Sample[]; gateway: Sample[] }> = [];
    const handled = new Map<string, number>();
    for (let round = 0; round < (quick ? 1 : ROUNDS); round++) {
      const got: Sample[][] = [[], [], [], []];
      for (let k = 0; k < kinds.length; k++) {
        const kind = (round + k) % kinds.length;
        got[kind] = await timed(workers, Math.ceil(count / ROUNDS), kinds[kind]!);
        samples[kind]!.push(...got[kind]!);
      }
      rounds.push({ direct: got[0]!, gateway: got[2]! });
      for (const [text, ms] of await fake.handled()) handled.set(text, ms);
    }
    const own = (s: Sample) => {
      const ms = handled.get(s.text);
      if (ms === undefined) throw new Error(`the fake has no record of "${s.text}"`);
      return s.ms - ms;
    };
    const [fakeOnly, hop, gateway, messages] = samples.map((series) => stats(series.map((s) => s.ms)));
    const floor = stats(samples[0]!.map(own)).p50;
    const perTurn = stats(samples[2]!.map((s) => own(s) - floor));
    const hopPerTurn = stats(samples[1]!.map((s) => own(s) - floor));
    const messagesPerTurn = stats(samples[3]!.map((s) => own(s) - floor));
    const ms = (s: { p50: number; p99: number }) => `p50 ${s.p50.toFixed(2)} / p99 ${s.p99.toFixed(2)} ms`;
    const note =
      `gateway ${ms(gateway!)}; fake alone ${ms(fakeOnly!)}; bare proxy hop ${ms(hop!)}; ` +
      `direct-path network floor ${floor.toFixed(2)} ms; gateway ${describeWarmup(warmup)}`;
    const at = `at concurrency ${workers}`;
    row(`turn overhead p50 ${at} (per turn, minus the fake's own time)`, perTurn.p50, {
      target: { op: "<=", value: TARGET_P50_MS },
      note,
    });
    row(`turn overhead p99 ${at} (per turn, minus the fake's own time)`, perTurn.p99, {
      ...(workers === CONCURRENCY ? { target: { op: "<=" as const, value: TARGET_P99_AT_16_MS } } : {}),
      note,
    });
    // the same difference within each round (its gateway block against its own direct block), then their median
    const roundDiffs = rounds
      .map((r) => stats(r.gateway.map(own)).p50 - stats(r.direct.map(own)).p50)
      .sort((a, b) => a - b);
    row(`  turn overhead p50 ${at}, median of the ${roundDiffs.length} rounds' own differences`, roundDiffs[roundDiffs.length >> 1]!, {
      note: `each round: gateway p50 minus the same round's direct-path p50, both minus the fake's own time per turn: ${roundDiffs.map((d) => d.toFixed(2)).join(", ")} ms`,
    });
    row(`  same turns: gateway p50 minus fake-alone p50 ${at}`, gateway!.p50 - fakeOnly!.p50, { note });
    row(`  same turns: gateway p99 minus fake-alone p50 ${at}`, gateway!.p99 - fakeOnly!.p50, {
      note: `the fake alone: p99 - p50 = ${(fakeOnly!.p99 - fakeOnly!.p50).toFixed(2)} ms of its own jitter`,
    });
    row(`turn overhead p50 ${at} via POST /v1/messages (per turn, minus the fake's own time)`, messagesPerTurn.p50, {
      note: `p99 ${messagesPerTurn.p99.toFixed(2)} ms; gateway ${ms(messages!)}`,
    });
    row(`  /v1/messages minus /v1/chat/completions, turn overhead p50 ${at}`, messagesPerTurn.p50 - perTurn.p50, {
      target: { op: "<=", value: TARGET_MESSAGES_EXTRA_P50_MS },
      note: "the same turn on Anthropic's wire, measured in blocks alternating with the chat completions series",
    });
    row(`bare proxy hop (transport floor) p50/p99 ${at}, per turn`, hopPerTurn.p50, {
      note: `a bare Bun.serve process forwarding the same upstream body; p99 ${hopPerTurn.p99.toFixed(2)} ms`,
    });
  }
  return rows;
}

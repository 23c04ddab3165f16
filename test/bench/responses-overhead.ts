/**
 * The Responses wire against chat completions, A/B back to back on one warm gateway: the same user text through
 * POST /v1/chat/completions and POST /v1/responses (store: false, and stored), in short blocks of rotating order
 * so the series see the same machine state. Each turn's latency minus the fake's own time for it (matched by the
 * unique text, as in turn-overhead.ts); the row is the difference of the p50s (the network floor cancels).
 */
import type { StandaloneFake } from "./announce.ts";
import { stats, type BenchRow } from "./types.ts";

const TURNS_PER_SERIES = 300;
const WARMUP_PER_SERIES = 300;
const ROUNDS = 6;
/** The Responses wire may cost at most this much more per turn than chat completions (p50, concurrency 1). */
const TARGET_DELTA_P50_MS = 0.2;

export interface ResponsesTargets {
  gatewayUrl: string;
  token: string;
  fake: StandaloneFake;
  quick?: boolean;
}

export async function responsesOverheadRows({ gatewayUrl, token, fake, quick = false }: ResponsesTargets): Promise<BenchRow[]> {
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
  const warm = quick ? 20 : WARMUP_PER_SERIES;
  for (const { once } of series) for (let i = 0; i < warm; i++) await once();
  await fake.handled();

  const samples: Array<Array<{ ms: number; text: string }>> = series.map(() => []);
  const handled = new Map<string, number>();
  const rounds = quick ? 1 : ROUNDS;
  const perBlock = Math.ceil((quick ? 30 : TURNS_PER_SERIES) / rounds);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < series.length; k++) {
      const which = (round + k) % series.length;
      for (let i = 0; i < perBlock; i++) {
        const started = performance.now();
        const text = await series[which]!.once();
        samples[which]!.push({ ms: performance.now() - started, text });
      }
    }
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
  return [
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

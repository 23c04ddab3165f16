/**
 * What traces cost a turn: the built gateway answers stateless `/v1/chat/completions` turns with one tool call (two
 * model calls: four spans a turn) against the fake provider, with `[telemetry]` off and on (exporting OTLP/JSON, and
 * OTLP/protobuf, to a fake receiver in this process), in alternating blocks at concurrency 1. Measured as the gateway process's CPU per turn
 * (all threads, /proc/<pid>/stat: independent of the machine's load) and the turn's latency as the client sees it.
 *
 * A/B: with PRX_BENCH_BASELINE=<another prx binary> (e.g. one built from main), its gateway (telemetry off: it may not
 * know the key) runs the same blocks, so "off" can be compared with a build without telemetry at all.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI } from "../../fakes/openai-server.ts";
import { startOtlpReceiver } from "../../fakes/otlp-receiver.ts";
import { listeningGateway } from "../gateway-process.ts";
import { cpuMs } from "../idle-cost.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

async function gateway(binary: string, dir: string, fakeUrl: string, telemetry: string) {
  const { proc, url } = await listeningGateway(
    binary,
    dir,
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${fakeUrl}"\n` +
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[gateway]\nrequire_pairing = false\nrate_limit_per_minute = 100000000\nrate_limit_per_token_per_minute = 100000000\n${telemetry}`,
  );
  let n = 0;
  const turn = async () => {
    const text = `use tool memory_recall {"query":"topic ${n++}"}`;
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: text }] }),
    });
    if (response.status !== 200) throw new Error(`turn answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  const block = async (count: number) => {
    const latencies: number[] = [];
    const before = cpuMs(proc.pid);
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await turn();
      latencies.push(performance.now() - started);
    }
    return { cpu: (cpuMs(proc.pid) - before) / count, p50: stats(latencies).p50 };
  };
  return { proc, block };
}

const suite: BenchSuite = async ({ binary, tmp, quick }) => {
  const fake = startFakeOpenAI();
  const receiver = startOtlpReceiver();
  const baseline = process.env.PRX_BENCH_BASELINE;
  const sides = [
    { name: "off", binary, telemetry: "" },
    { name: "on", binary, telemetry: `[telemetry]\notlp_endpoint = "${receiver.url}"\n` },
    { name: "on, protobuf", binary, telemetry: `[telemetry]\notlp_endpoint = "${receiver.url}"\nprotocol = "http/protobuf"\n` },
    ...(baseline ? [{ name: "baseline", binary: baseline, telemetry: "" }] : []),
  ];
  const running = await Promise.all(sides.map(async (side) => ({ ...side, gw: await gateway(side.binary, join(tmp, side.name.replace(/\W+/g, "-")), fake.url, side.telemetry) })));
  try {
    const perBlock = quick ? 50 : 400;
    const rounds = quick ? 1 : 4;
    const measured: Record<string, { cpu: number[]; p50: number[] }> = {};
    for (const side of running) {
      measured[side.name] = { cpu: [], p50: [] };
      await side.gw.block(quick ? 50 : 1000);
    }
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? running : [...running].reverse()) {
        const got = await side.gw.block(perBlock);
        measured[side.name]!.cpu.push(got.cpu);
        measured[side.name]!.p50.push(got.p50);
      }
    }
    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const rows: BenchRow[] = [];
    const label = (name: string) => (name === "baseline" ? `baseline ${baseline}` : `telemetry ${name}`);
    for (const side of running) {
      const { cpu, p50 } = measured[side.name]!;
      rows.push({
        suite: "telemetry",
        name: `gateway CPU per turn with a tool call (${label(side.name)})`,
        value: Number(stats(cpu).p50.toFixed(3)),
        unit: "ms",
        note: `p50 of ${rounds} alternating blocks of ${perBlock}: ${cpu.map((v) => v.toFixed(3)).join(", ")}; load ${load}`,
      });
      rows.push({
        suite: "telemetry",
        name: `  turn latency p50, concurrency 1 (${label(side.name)})`,
        value: Number(stats(p50).p50.toFixed(3)),
        unit: "ms",
        note: `block p50s: ${p50.map((v) => v.toFixed(3)).join(", ")}`,
      });
    }
    // stopped gracefully, the gateway sends what is still queued: every turn's four spans arrive
    for (const side of running) side.gw.proc.kill();
    await Promise.all(running.map((side) => side.gw.proc.exited));
    const turns = (quick ? 50 : 1000) + rounds * perBlock;
    rows.push({
      suite: "telemetry",
      name: "spans received by the OTLP receiver (telemetry on, both encodings)",
      value: receiver.spans().length,
      unit: "count",
      note: `2 gateways x ${turns} turns of 4 spans; invalid requests: ${receiver.invalid().length}`,
    });
    return rows;
  } finally {
    for (const side of running) side.gw.proc.kill();
    await Promise.all(running.map((side) => side.gw.proc.exited));
    await fake.stop();
    await receiver.stop();
  }
};

export default suite;

/**
 * What fitting prompts to the context window costs a turn that does not compact: the built gateway answers session
 * turns (`POST /api/sessions/:id/message`, a history of 50 messages read, estimated and fitted each turn) and
 * stateless `/v1/chat/completions` turns against the fake provider, in alternating blocks at concurrency 1. Measured as
 * the gateway process's CPU per turn (all threads, /proc/<pid>/stat: independent of the machine's load).
 *
 * A/B: with PRX_BENCH_BASELINE=<another prx binary> (e.g. one built from main), the same blocks run on both gateways,
 * alternating, and the row gives both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI } from "../../fakes/openai-server.ts";
import { listeningGateway } from "../gateway-process.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function gateway(binary: string, dir: string, fakeUrl: string) {
  const { proc, url } = await listeningGateway(
    binary,
    dir,
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${fakeUrl}"\n` +
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[gateway]\nrequire_pairing = false\nrate_limit_per_minute = 100000000\nrate_limit_per_token_per_minute = 100000000\n`,
  );
  let n = 0;
  const turn = async (kind: "session" | "stateless") => {
    const text = `tell me about topic ${n++}, with a sentence or two of context so the history has some weight to it`;
    const response =
      kind === "session"
        ? await fetch(`${url}/api/sessions/bench-${n % 4}/message`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: text }) })
        : await fetch(`${url}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: "fake-model", messages: [{ role: "system", content: "be brief" }, { role: "user", content: text }] }),
          });
    if (response.status !== 200) throw new Error(`turn answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  const block = async (kind: "session" | "stateless", count: number) => {
    const before = cpuMs(proc.pid);
    for (let i = 0; i < count; i++) await turn(kind);
    return (cpuMs(proc.pid) - before) / count;
  };
  return { proc, block };
}

const suite: BenchSuite = async ({ binary, tmp, quick }) => {
  const fake = startFakeOpenAI();
  const baseline = process.env.PRX_BENCH_BASELINE;
  const sides = [{ name: "this", binary }, ...(baseline ? [{ name: "baseline", binary: baseline }] : [])];
  const running = await Promise.all(sides.map(async (side) => ({ ...side, gw: await gateway(side.binary, join(tmp, side.name), fake.url) })));
  try {
    const perBlock = quick ? 50 : 400;
    const rounds = quick ? 1 : 4;
    const cpu: Record<string, { session: number[]; stateless: number[] }> = {};
    // warm-up: the sessions fill past max_history_messages (50) so every later turn reads a full history
    for (const side of running) {
      cpu[side.name] = { session: [], stateless: [] };
      await side.gw.block("session", quick ? 120 : 400);
      await side.gw.block("stateless", quick ? 50 : 400);
    }
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? running : [...running].reverse()) {
        cpu[side.name]!.session.push(await side.gw.block("session", perBlock));
        cpu[side.name]!.stateless.push(await side.gw.block("stateless", perBlock));
      }
    }
    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const rows: BenchRow[] = [];
    for (const kind of ["session", "stateless"] as const) {
      for (const side of running) {
        const blocks = cpu[side.name]![kind];
        rows.push({
          suite: "context",
          name: `gateway CPU per ${kind} turn (${side.name === "this" ? "this binary" : `baseline ${baseline}`})`,
          value: Number(stats(blocks).p50.toFixed(3)),
          unit: "ms",
          note: `p50 of ${rounds} alternating blocks of ${perBlock}: ${blocks.map((v) => v.toFixed(3)).join(", ")}; load ${load}`,
        });
      }
    }
    return rows;
  } finally {
    for (const side of running) side.gw.proc.kill();
    await Promise.all(running.map((side) => side.gw.proc.exited));
    await fake.stop();
  }
};

export default suite;

/** One `prx agent -m` turn against a fake provider: its overhead over the provider's time, and peak RSS (start-up against Bun's floor: suites/startup.ts). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI } from "../../fakes/openai-server.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

const FAKE_LATENCY_MS = 50;

/** Async spawn: the fake provider runs in this process, so its event loop must keep turning while we wait. */
async function timeRun(argv: string[]): Promise<{ ms: number; maxRssMb: number }> {
  const started = performance.now();
  const proc = Bun.spawn(argv, { stdout: "ignore", stderr: "pipe" });
  const code = await proc.exited;
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${await new Response(proc.stderr).text()}`);
  const maxRss = proc.resourceUsage()?.maxRSS ?? 0;
  return { ms, maxRssMb: maxRss / 1024 / 1024 };
}

const suite: BenchSuite = async ({ binary, tmp }) => {
  const rows: BenchRow[] = [];
  const fake = await startFakeOpenAI({ latencyMs: FAKE_LATENCY_MS });
  try {
    writeFileSync(
      join(tmp, "config.toml"),
      `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${fake.url}"\n`,
    );
    const argv = [binary, "agent", "--workspace", tmp, "-m", "hello bench"];
    await timeRun(argv);
    const runs: { ms: number; maxRssMb: number }[] = [];
    for (let i = 0; i < 10; i++) runs.push(await timeRun(argv));
    const wall = stats(runs.map((r) => r.ms)).p50;
    rows.push({ suite: "cli", name: `prx agent -m turn wall time (fake latency ${FAKE_LATENCY_MS} ms)`, value: wall, unit: "ms" });
    rows.push({ suite: "cli", name: "prx agent -m turn overhead (wall - fake latency)", value: wall - FAKE_LATENCY_MS, unit: "ms", target: { op: "<=", value: 100 } });
    rows.push({ suite: "cli", name: "prx agent -m peak RSS", value: Math.max(...runs.map((r) => r.maxRssMb)), unit: "MB" });
  } finally {
    await fake.stop();
  }
  return rows;
};

export default suite;

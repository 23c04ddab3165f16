/**
 * `prx plugins dev` change-to-reloaded latency, through the binary: a gateway of a workspace, dev on a small tool
 * plugin, then edits of its source, each timed from the write to dev's line saying the gateway reloaded it.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGatewayBinary } from "../helpers/binary.ts";
import { lineReader } from "../plugins/kit/helpers.ts";

export interface DevLatency {
  /** Write to "reloaded" line, per edit, ms. */
  samples: number[];
  /** What dev itself reports (from the file event to the reload's answer), per edit, ms. */
  reported: number[];
}

export async function measureDevLatency(binary: string, tmp: string, env: Record<string, string>, edits: number): Promise<DevLatency> {
  const ws = join(tmp, "dev-ws");
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, "config.toml"), 'default_provider = "offline"\nautonomy = { level = "full" }\n');
  const gateway = await startGatewayBinary(ws, env);
  const dir = join(tmp, "dev-tool");
  const created = Bun.spawnSync([binary, "plugins", "new", "dev-tool", "--kind", "tool", "--dir", dir], { env });
  if (created.exitCode !== 0) throw new Error(`prx plugins new failed: ${created.stderr}`);
  const dev = Bun.spawn([binary, "plugins", "dev", dir, "-w", ws, "--url", gateway.url], { env, stdout: "pipe", stderr: "inherit" });
  const out = lineReader(dev.stdout as ReadableStream<Uint8Array>);
  const samples: number[] = [];
  const reported: number[] = [];
  try {
    const start = await out.next(/^\[dev\] start: /);
    if (!start.includes("reloaded")) throw new Error(`dev did not start: ${start}`);
    const source = join(dir, "src/plugin.ts");
    const original = readFileSync(source, "utf8");
    for (let i = 0; i < edits; i++) {
      const from = out.lines.length;
      const started = performance.now();
      writeFileSync(source, original.replace("${words}`", `\${words} (edit ${i})\``));
      const line = await out.next(/^\[dev\] .*changed: /, from);
      samples.push(performance.now() - started);
      if (!line.includes("reloaded")) throw new Error(`edit ${i} did not reload: ${line}`);
      const own = /, ([\d.]+) (m?s) after the change/.exec(line);
      if (own) reported.push(Number(own[1]) * (own[2] === "s" ? 1000 : 1));
    }
  } finally {
    dev.kill("SIGINT");
    await dev.exited;
    gateway.proc.kill();
    await gateway.proc.exited;
  }
  return { samples, reported };
}

/**
 * One channel process taking bursts of messages: `prx channel run` (Telegram) against a fake Bot API in this process
 * and a fake provider in its own, fed `messages` updates at `rate` a second, `bursts` times, with a pause between.
 * Per burst: throughput (messages / (last reply - first update)), p50 and p99 of update-queued -> reply-received, and
 * the process's RSS once the burst is answered and the pause is over, then its JavaScript heap after a full collection
 * (heap-probe.ts, preloaded into the binary). A process that keeps something per message shows it here: later bursts
 * slower than the first, the heap after a collection climbing burst after burst. RSS also follows the allocator's
 * high-water mark (how far that burst queued up), so it moves by several MB either way between bursts.
 *
 * Standalone: `bun test/bench/channel-bursts.ts <binary> [bursts] [messages] [rate] [chats]` prints each burst.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { STANDALONE_HANDLED_COMMAND } from "../fakes/common.ts";
import { startFakeTelegram } from "../fakes/telegram-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { heapProbeEnv, probeHeap } from "./heap-probe-client.ts";
import { stats } from "./types.ts";

export interface BurstOptions {
  binary: string;
  tmp: string;
  bursts: number;
  messages: number;
  /** Messages a second while a burst is sent. */
  rate: number;
  /** The messages go round-robin to this many chats (each chat's order is kept by the channel). */
  chats: number;
  /** Pause after a burst is answered, before its RSS is read and the next one starts. */
  pauseMs: number;
  /** The fake provider's answer delay. */
  providerLatencyMs: number;
  /** Extra environment for the channel process (profiling). */
  env?: Record<string, string>;
}

export interface BurstResult {
  burst: number;
  throughput: number;
  p50: number;
  p99: number;
  rssMb: number;
  /** Live JavaScript heap after a full collection, read after the RSS (the collection moves RSS). */
  heapMb: number;
  heapObjects: number;
  cpuMs: number;
}

/** A process's resident memory (VmRSS), MB. */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.replace(/\D+/g, "")) / 1024;
}

/** User + system CPU of a process so far (ms), from /proc/PID/stat. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The fake provider in its own process; `forget()` makes it drop what it recorded (so it does not grow burst by burst). */
async function startProvider(latencyMs: number): Promise<{ url: string; forget(): Promise<void>; stop(): Promise<void> }> {
  const script = resolve(import.meta.dir, "../fakes/openai-server.ts");
  const child = Bun.spawn([process.execPath, script, "--port", "0", "--latency-ms", String(latencyMs)], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let out = "";
  const line = async (): Promise<string> => {
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the fake provider exited");
      out += decoder.decode(value, { stream: true });
    }
    const at = out.indexOf("\n");
    const first = out.slice(0, at);
    out = out.slice(at + 1);
    return first;
  };
  const url = (await line()).trim();
  return {
    url,
    forget: async () => {
      child.stdin.write(`${STANDALONE_HANDLED_COMMAND}\n`);
      await child.stdin.flush();
      await line();
    },
    stop: async () => {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

export async function measureBursts(o: BurstOptions, onBurst?: (r: BurstResult, pid: number) => void | Promise<void>): Promise<BurstResult[]> {
  const provider = await startProvider(o.providerLatencyMs);
  const tg = startFakeTelegram();
  writeFileSync(
    join(o.tmp, "config.toml"),
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${provider.url}"\n` +
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n` +
      `[channels.tg]\nkind = "telegram"\nenabled = false\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 25\ndm_policy = "open"\n`,
  );
  const heapFile = join(o.tmp, "heap-probe.jsonl");
  const channel = Bun.spawn([o.binary, "channel", "run", "tg", "-w", o.tmp], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: o.tmp, TG_TOKEN: tg.token, ...o.env, ...heapProbeEnv(heapFile, o.env?.BUN_OPTIONS) },
    stdout: "ignore",
    stderr: "inherit",
  });
  const results: BurstResult[] = [];
  try {
    await waitFor(() => tg.calls.some((c) => c.method === "getUpdates"), "the channel to poll");
    // a few turns first, so the first burst does not pay the host's opening and the first JIT tiers
    for (let i = 0; i < 20; i++) {
      const before = tg.sent.length;
      tg.message({ chatId: 1, text: `warm ${i}` });
      await tg.waitForSent(before + 1, 30_000);
    }
    await Bun.sleep(o.pauseMs);
    const queuedAt = new Map<string, number>();
    for (let b = 0; b < o.bursts; b++) {
      const before = tg.sent.length;
      const cpuBefore = cpuMs(channel.pid);
      queuedAt.clear();
      const started = performance.now();
      let queued = 0;
      while (queued < o.messages) {
        const due = Math.min(o.messages, Math.floor(((performance.now() - started) * o.rate) / 1000) + 1);
        for (; queued < due; queued++) {
          const text = `burst ${b} msg ${queued}`;
          queuedAt.set(`echo: ${text}`, performance.now());
          tg.message({ chatId: 10_000 + (queued % o.chats), text });
        }
        await Bun.sleep(1);
      }
      await tg.waitForSent(before + o.messages, 600_000);
      const replies = tg.sent.slice(before, before + o.messages);
      const latencies = replies.map((s) => s.at - (queuedAt.get(s.visible) ?? NaN)).filter((ms) => Number.isFinite(ms));
      if (latencies.length !== o.messages) throw new Error(`burst ${b}: ${latencies.length} of ${o.messages} replies matched their messages`);
      const elapsed = Math.max(...replies.map((s) => s.at)) - started;
      const cpu = cpuMs(channel.pid) - cpuBefore;
      await provider.forget();
      tg.calls.splice(0); // the fake's own records (this process) do not grow burst by burst either
      tg.actions.splice(0);
      await Bun.sleep(o.pauseMs);
      const s = stats(latencies);
      const rss = rssMb(channel.pid);
      const heap = await probeHeap(channel.pid, heapFile);
      if (!heap) throw new Error(`burst ${b}: the channel process did not report its heap (heap-probe.ts not preloaded?)`);
      const result = {
        burst: b + 1,
        throughput: o.messages / (elapsed / 1000),
        p50: s.p50,
        p99: s.p99,
        rssMb: rss,
        heapMb: heap.heapSize / 1024 / 1024,
        heapObjects: heap.objectCount,
        cpuMs: cpu,
      };
      results.push(result);
      await onBurst?.(result, channel.pid);
    }
  } finally {
    channel.kill("SIGTERM");
    await channel.exited;
    await tg.stop();
    await provider.stop();
  }
  return results;
}

if (import.meta.main) {
  const [binary, bursts = "5", messages = "1000", rate = "1000", chats = "100"] = process.argv.slice(2);
  if (!binary) {
    console.error("usage: bun test/bench/channel-bursts.ts <binary> [bursts] [messages] [rate] [chats]");
    process.exit(2);
  }
  const tmp = mkdtempSync(join(tmpdir(), "prx-bursts-"));
  try {
    await measureBursts(
      { binary: resolve(binary), tmp, bursts: Number(bursts), messages: Number(messages), rate: Number(rate), chats: Number(chats), pauseMs: 1000, providerLatencyMs: 5 },
      (r) =>
        console.log(
          `burst ${r.burst}: ${r.throughput.toFixed(0)} msg/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, RSS ${r.rssMb.toFixed(1)} MB, heap after GC ${r.heapMb.toFixed(2)} MB (${r.heapObjects} objects), CPU ${r.cpuMs.toFixed(0)} ms`,
        ),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Channel processes, measured with the built binary, a fake Telegram and a fake provider in this process:
 * - inbound-to-reply latency through `prx channel run` (update delivered -> sendMessage received) minus the provider's
 *   own time for that turn, p50/p99 (target <= 5 ms);
 * - the channel process's RSS against the gateway's idle RSS measured in the same run (target <= 1.5x);
 * - restart time after a crash: SIGKILL of the supervised channel process -> its replacement running (includes the
 *   supervisor's first backoff step, CHANNEL_RESTART_BASE_MS);
 * - 100 chats x 10 messages at once through one Telegram process: each answered once and in order per chat;
 * - one channel process taking 5 bursts of 1,000 messages at 1,000 msg/s (100 chats): throughput, p50 and RSS of each
 *   burst, the last against the first (channel-bursts.ts);
 * - email against a real Dovecot: mail submitted -> reply in the INBOX minus provider time, and its process's RSS
 *   against an idle gateway's (channel-email.ts);
 * - Slack, Discord, Matrix, Signal, Mattermost (fakes), the signed webhook, WhatsApp, Teams, Feishu / Lark, Google Chat and LINE (their fakes POSTing
 *   to the gateway's webhook route) and IRC (ngIRCd): the same two measures (channel-platforms.ts).
 * At its end the suite prints every channel's two measures in one table.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHANNEL_RESTART_BASE_MS } from "../../../src/channels/limits.ts";
import { handledByLastText } from "../../fakes/common.ts";
import { startFakeOpenAI } from "../../fakes/openai-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../../fakes/telegram-server.ts";
import { measureBursts } from "../channel-bursts.ts";
import { emailRows } from "../channel-email.ts";
import { overheadRow, platformRows, rssRow } from "../channel-platforms.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";
import { waitFor } from "../../helpers/wait.ts";

let LATENCY_MESSAGES = 200;
let CHATS = 100;
let PER_CHAT = 10;
let IDLE_MS = 3000;
let BURSTS = 5;
let BURST_MESSAGES = 1000;
const BURST_RATE = 1000;
const BURST_CHATS = 100;
/** What the live heap may grow by per burst of BURST_MESSAGES: ~100 bytes a message kept. */
const HEAP_SLOPE_MB = 0.1;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = { LATENCY_MESSAGES: 20, CHATS: 10, PER_CHAT: 3, IDLE_MS: 500, BURSTS: 2, BURST_MESSAGES: 100 };

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.replace(/\D+/g, "")) / 1024;
}

function env(tmp: string, token: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmp, TG_TOKEN: token };
}

function config(providerUrl: string, tg: FakeTelegram, enabled: boolean): string {
  return (
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${providerUrl}"\n` +
    `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[gateway]\nrate_limit_per_minute = 1000000\nrate_limit_per_token_per_minute = 1000000\n` +
    `[channels.tg]\nkind = "telegram"\nenabled = ${enabled}\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 25\ndm_policy = "open"\n`
  );
}

const suite: BenchSuite = async ({ binary, tmp, quick }) => {
  if (quick) ({ LATENCY_MESSAGES, CHATS, PER_CHAT, IDLE_MS, BURSTS, BURST_MESSAGES } = QUICK);
  const rows: BenchRow[] = [];
  const children: Array<ReturnType<typeof Bun.spawn>> = [];
  const provider = startFakeOpenAI({ latencyMs: 5 });
  const tg = startFakeTelegram();
  writeFileSync(join(tmp, "config.toml"), config(provider.url, tg, false));
  const channel = Bun.spawn([binary, "channel", "run", "tg", "-w", tmp], { env: env(tmp, tg.token), stdout: "pipe", stderr: "inherit" });
  try {
    await waitFor(() => tg.calls.some((c) => c.method === "getUpdates"), "the channel to poll");
    // latency: one message at a time
    const overheads: number[] = [];
    for (let i = 0; i < LATENCY_MESSAGES + 20; i++) {
      const text = `latency ${i}`;
      const before = tg.sent.length;
      const t0 = performance.now();
      tg.message({ chatId: 7, text });
      await tg.waitForSent(before + 1);
      const total = tg.sent[before]!.at - t0;
      const handled = handledByLastText(provider).find(([t]) => t === text)?.[1] ?? 0;
      if (i >= 20) overheads.push(total - handled); // the first turns warm the JIT up
    }
    const s = stats(overheads);
    rows.push({ suite: "channels", name: overheadRow("telegram"), value: s.p50, unit: "ms", target: { op: "<=", value: 5 }, note: `p99 ${s.p99.toFixed(1)} ms; ${LATENCY_MESSAGES} sequential messages, fake provider 5 ms` });
    Bun.gc(true);
    await Bun.sleep(1500);
    const channelRss = rssMb(channel.pid);

    // 100 chats x 10 messages at once
    provider.reset();
    const before = tg.sent.length;
    const started = performance.now();
    for (let m = 0; m < PER_CHAT; m++) for (let c = 0; c < CHATS; c++) tg.message({ chatId: 10_000 + c, text: `chat ${c} msg ${m}` });
    await tg.waitForSent(before + CHATS * PER_CHAT, 120_000);
    const ms = performance.now() - started;
    await Bun.sleep(1000);
    const burst = tg.sent.slice(before);
    const byChat = new Map<string, string[]>();
    for (const s of burst) byChat.set(s.chat_id, [...(byChat.get(s.chat_id) ?? []), s.visible]);
    let inOrder = 0;
    for (const [chat, texts] of byChat) {
      const c = Number(chat) - 10_000;
      const want = Array.from({ length: PER_CHAT }, (_, m) => `echo: chat ${c} msg ${m}`);
      if (JSON.stringify(texts) === JSON.stringify(want)) inOrder += 1;
    }
    rows.push({ suite: "channels", name: `${CHATS} chats x ${PER_CHAT} messages: replies sent`, value: burst.length, unit: "count", target: { op: "<=", value: CHATS * PER_CHAT }, note: `${CHATS * PER_CHAT} expected, exactly once` });
    rows.push({ suite: "channels", name: `${CHATS} chats x ${PER_CHAT} messages: chats answered once and in order`, value: inOrder, unit: "count", target: { op: ">=", value: CHATS } });
    rows.push({ suite: "channels", name: `${CHATS} chats x ${PER_CHAT} messages: throughput`, value: (CHATS * PER_CHAT) / (ms / 1000), unit: "ops/s", note: `${(ms / 1000).toFixed(2)} s for all` });
    channel.kill("SIGTERM");
    await channel.exited;

    // gateway idle RSS (no channel) in the same run, then the supervised restart time
    const gateway = Bun.spawn([binary, "gateway", "--port", "0", "-w", tmp], { env: env(tmp, tg.token), stdout: "pipe", stderr: "ignore" });
    children.push(gateway);
    const reader = (gateway.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!/pairing code: ([A-Z2-9]{8})/.test(out)) out += new TextDecoder().decode((await reader.read()).value);
    await Bun.sleep(IDLE_MS);
    const gatewayRss = rssMb(gateway.pid);
    rows.push({ suite: "channels", name: rssRow("telegram"), value: channelRss / gatewayRss, unit: "count", target: { op: "<=", value: 1.5 }, note: `channel ${channelRss.toFixed(1)} MB after ${LATENCY_MESSAGES + 20 + CHATS * PER_CHAT} turns, gateway idle ${gatewayRss.toFixed(1)} MB` });
    gateway.kill("SIGTERM");
    await gateway.exited;

    writeFileSync(join(tmp, "config.toml"), config(provider.url, tg, true));
    const supervised = Bun.spawn([binary, "gateway", "--port", "0", "-w", tmp], { env: env(tmp, tg.token), stdout: "pipe", stderr: "ignore" });
    children.push(supervised);
    const r2 = (supervised.stdout as ReadableStream<Uint8Array>).getReader();
    let out2 = "";
    while (!/pairing code: ([A-Z2-9]{8})/.test(out2)) out2 += new TextDecoder().decode((await r2.read()).value);
    const url2 = /listening on (\S+)/.exec(out2)![1]!;
    const code = /pairing code: ([A-Z2-9]{8})/.exec(out2)![1]!;
    const token = ((await (await fetch(`${url2}/pair`, { method: "POST", headers: { "x-pairing-code": code } })).json()) as { token: string }).token;
    const info = async () =>
      ((await (await fetch(`${url2}/api/channels`, { headers: { authorization: `Bearer ${token}` } })).json()) as { channels: Array<{ state: string; pid: number }> }).channels[0]!;
    const restarts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await waitFor(async () => (await info()).state === "running", "the channel to run");
      const { pid } = await info();
      const t0 = performance.now();
      process.kill(pid, "SIGKILL");
      await waitFor(async () => {
        const now = await info();
        return now.state === "running" && now.pid !== pid;
      }, "the restart");
      restarts.push(performance.now() - t0);
      await Bun.sleep(500);
    }
    // quick repeated crashes double the backoff: 200, 400, 800, ... ms; what is left is the process start itself
    const overheads2 = restarts.map((ms, i) => ms - CHANNEL_RESTART_BASE_MS * 2 ** i);
    rows.push({ suite: "channels", name: "restart after SIGKILL -> channel running again (first crash)", value: restarts[0]!, unit: "ms", note: `includes the first backoff step (${CHANNEL_RESTART_BASE_MS} ms)` });
    rows.push({ suite: "channels", name: "restart after SIGKILL minus the backoff delay (median of 5)", value: stats(overheads2).p50, unit: "ms", note: "process start, workspace, plugin runtime, getMe" });
    supervised.kill("SIGTERM");
    await supervised.exited;

    // every channel first, printed as one table, then the bursts of one process
    const emailDir = join(tmp, "email");
    mkdirSync(emailDir);
    provider.reset();
    rows.push(...(await emailRows({ binary, tmp: emailDir, provider, messages: quick ? 5 : 50, idleMs: IDLE_MS })));
    const platformsDir = join(tmp, "platforms");
    mkdirSync(platformsDir);
    provider.reset();
    rows.push(...(await platformRows({ binary, tmp: platformsDir, provider, messages: quick ? 10 : 100, gatewayRss })));
    console.log(channelTable(rows));
    rows.push(...(await burstRows(binary, tmp)));
  } finally {
    channel.kill("SIGKILL");
    for (const child of children) child.kill("SIGKILL");
    await Promise.all(children.map((child) => child.exited));
    await tg.stop();
    await provider.stop();
  }
  return rows;
};

/** Bursts through one process: each burst's throughput, p50 and RSS, and the last burst against the first. */
async function burstRows(binary: string, tmp: string): Promise<BenchRow[]> {
  const dir = join(tmp, "bursts");
  mkdirSync(dir);
  const series = `channel process, ${BURSTS} bursts of ${BURST_MESSAGES.toLocaleString("en-US")} messages at ${BURST_RATE.toLocaleString("en-US")} msg/s`;
  const results = await measureBursts(
    { binary, tmp: dir, bursts: BURSTS, messages: BURST_MESSAGES, rate: BURST_RATE, chats: BURST_CHATS, pauseMs: 1000, providerLatencyMs: 5 },
    (r) =>
      console.log(
        `  ${series}: burst ${r.burst}: ${r.throughput.toFixed(0)} msg/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, RSS ${r.rssMb.toFixed(1)} MB, heap after GC ${r.heapMb.toFixed(2)} MB (${r.heapObjects} objects), CPU ${r.cpuMs.toFixed(0)} ms`,
      ),
  );
  const rows: BenchRow[] = [];
  for (const r of results) {
    const note = `p99 ${r.p99.toFixed(0)} ms; the process's CPU for the burst ${r.cpuMs.toFixed(0)} ms; ${BURST_CHATS} chats`;
    rows.push({ suite: "channels", name: `${series}: burst ${r.burst} throughput`, value: r.throughput, unit: "ops/s", note });
    rows.push({ suite: "channels", name: `${series}: burst ${r.burst} p50 (update queued -> reply)`, value: r.p50, unit: "ms" });
    rows.push({ suite: "channels", name: `${series}: burst ${r.burst} RSS after it`, value: r.rssMb, unit: "MB" });
    rows.push({ suite: "channels", name: `${series}: burst ${r.burst} JavaScript heap after a full collection`, value: r.heapMb, unit: "MB", note: `${r.heapObjects} objects` });
  }
  const first = results[0]!;
  const last = results.at(-1)!;
  const side = `burst 1: ${first.throughput.toFixed(0)} msg/s, p50 ${first.p50.toFixed(0)} ms, ${first.rssMb.toFixed(1)} MB; burst ${last.burst}: ${last.throughput.toFixed(0)} msg/s, p50 ${last.p50.toFixed(0)} ms, ${last.rssMb.toFixed(1)} MB`;
  rows.push({ suite: "channels", name: `${series}: last burst's throughput / first's`, value: last.throughput / first.throughput, unit: "count", target: { op: ">=", value: 0.9 }, note: side });
  // the first burst still grows the process to its working size; what it keeps per message shows as a slope after it
  const later = results.slice(1);
  rows.push({
    suite: "channels",
    name: `${series}: RSS growth per burst after the first (least-squares slope)`,
    value: later.length >= 2 ? slope(later.map((r) => [r.burst, r.rssMb])) : NaN,
    unit: "MB",
    target: { op: "<=", value: 2 },
    note: `RSS ${results.map((r) => r.rssMb.toFixed(0)).join(" / ")} MB; CPU per burst ${results.map((r) => r.cpuMs.toFixed(0)).join(" / ")} ms; RSS also follows the allocator's high-water mark, see the heap row`,
  });
  // what the process keeps per message, without the allocator's high-water mark: the live heap after a full collection
  rows.push({
    suite: "channels",
    name: `${series}: JavaScript heap after a full collection, growth per burst after the first (least-squares slope)`,
    value: later.length >= 2 ? slope(later.map((r) => [r.burst, r.heapMb])) : NaN,
    unit: "MB",
    target: { op: "<=", value: HEAP_SLOPE_MB },
    note: `${results.map((r) => r.heapMb.toFixed(2)).join(" / ")} MB; objects ${results.map((r) => r.heapObjects).join(" / ")}`,
  });
  return rows;
}

const CHANNELS = ["telegram", "slack", "discord", "matrix", "webhook", "whatsapp", "signal", "mattermost", "teams", "feishu", "line", "googlechat", "irc", "email"];

/** Every channel's inbound-to-reply overhead and RSS ratio, one line each, from the rows the suite measured. */
function channelTable(rows: BenchRow[]): string {
  const value = (name: string) => rows.find((r) => r.name === name);
  const lines = [["channel", "overhead p50 (ms)", "p99 (ms)", "RSS / gateway idle", "met (<= 5 ms, <= 1.5)"]];
  for (const channel of CHANNELS) {
    const overhead = rows.find((r) => r.name.startsWith(overheadRow(channel)) && r.target);
    const rss = value(rssRow(channel));
    const p99 = /p99 ([\d.]+) ms/.exec(overhead?.note ?? "")?.[1] ?? "";
    const met = overhead && rss ? (overhead.value <= 5 && rss.value <= 1.5 ? "yes" : "NO") : "not measured";
    lines.push([channel, overhead ? overhead.value.toFixed(2) : "-", p99, rss ? rss.value.toFixed(2) : "-", met]);
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return [`  channels (load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}):`, ...lines.map((l) => `  ${l.map((c, i) => c.padEnd(widths[i]!)).join("  ")}`)].join("\n");
}

function slope(points: Array<[number, number]>): number {
  const mx = points.reduce((a, [x]) => a + x, 0) / points.length;
  const my = points.reduce((a, [, y]) => a + y, 0) / points.length;
  const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return num / den;
}

export default suite;

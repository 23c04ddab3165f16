/**
 * One row pair per platform of `bun run bench channels` besides Telegram and email: inbound-to-reply minus the
 * provider's time for the turn, p50, and the channel process's RSS against an idle gateway's. Platforms that hold a
 * connection (Signal, Mattermost, Slack, Matrix, Discord; IRC against a real ngIRCd) run under `prx channel run`
 * against their fakes. Platforms that receive over HTTP (the signed webhook, WhatsApp, Teams, Feishu / Lark, Google
 * Chat, LINE) run as they do in
 * production, a channel process of the built gateway: the fake POSTs its signed notification to
 * /channels/<name>/webhook exactly as the platform would, and the time includes the gateway's forwarding hop. IRC's row
 * is prx's part: ngIRCd relaying a PRIVMSG both ways, measured after each message with a bare client in its own process
 * in prx's place (irc-echo.ts), is subtracted; the raw round trip is a row of its own. IRC's messages go back to back
 * as the other platforms' do, in groups as large as the flood control lets go at once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { IRC_SEND_BURST, IRC_SEND_INTERVAL_MS } from "../../src/channels/limits.ts";
import { signPrx } from "../../src/channels/signature.ts";
import { handledByLastText } from "../fakes/common.ts";
import { startFakeDiscord } from "../fakes/discord-server.ts";
import { startFakeMatrix } from "../fakes/matrix-server.ts";
import { startFakeMattermost } from "../fakes/mattermost-server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeSignal } from "../fakes/signal-server.ts";
import { startFakeSlack } from "../fakes/slack-server.ts";
import { startFakeTeams } from "../fakes/teams-server.ts";
import { startFakeFeishu } from "../fakes/feishu-server.ts";
import { CHAT_ISSUER, startFakeGoogleChat } from "../fakes/googlechat-server.ts";
import { startFakeLine } from "../fakes/line-server.ts";
import { startFakeWhatsApp } from "../fakes/whatsapp-server.ts";
import { ircPerson, NGIRCD, startNgircd } from "../helpers/ngircd.ts";
import { rssMb } from "./channel-bursts.ts";
import { stats, type BenchRow } from "./types.ts";

interface Platform {
  name: string;
  /** The [channels.<name>] table's keys after kind. */
  table: string;
  env: Record<string, string>;
  /** Receives through the gateway's /channels/<name>/webhook: `say` is given that URL. */
  overHttp?: true;
  say(text: string, hook: string): void;
  /** The platform's own work for the next message before it is sent (signing its token): done before the clock starts. */
  prepare?: () => void;
  replies(): number;
  /**
   * The list the fake records each call in: its pushes are watched, so a reply is timed when it lands rather than
   * when the loop below, which polls every millisecond, next looks (Telegram's row takes its fake's arrival time too).
   */
  log?: unknown[];
  /** The platform has the channel's receiving connection (events sent before it are not delivered later). */
  ready?: () => boolean;
  /**
   * Flood control on the way (IRC: prx sends IRC_SEND_BURST lines at once, then one per IRC_SEND_INTERVAL_MS, and the
   * server holds back a client that talks faster than a few commands a second): messages go back to back in groups of
   * `burst`, `pauseMs` apart, so that no reply waits for the flood control and every channel is timed back to back.
   */
  paced?: { burst: number; pauseMs: number };
  /**
   * One round trip through the platform's own server with a bare client in prx's place (ngIRCd relaying a PRIVMSG there
   * and back): taken after each message, its p50 is subtracted so the target applies to prx's part.
   */
  floor?: () => Promise<number>;
  stop(): Promise<void>;
}

/** The row names every channel's two measures take (channels.ts gathers them into one table). */
export const overheadRow = (channel: string) =>
  channel === "irc" ? "irc: inbound-to-reply minus provider time minus ngIRCd's relay both ways (prx's part), p50" : `${channel}: inbound-to-reply minus provider time, p50`;
const ircRawRow = "irc: inbound-to-reply minus provider time, p50, ngIRCd's relay included";
export const rssRow = (channel: string) => `${channel}: channel process RSS / gateway idle RSS`;

async function platforms(): Promise<Platform[]> {
  const sig = startFakeSignal();
  const mm = startFakeMattermost();
  const slack = startFakeSlack();
  const mx = startFakeMatrix();
  const dc = startFakeDiscord({ heartbeatIntervalMs: 41_250 });
  const wa = startFakeWhatsApp();
  const ms = await startFakeTeams();
  // Bot Framework reuses its token until it expires (an hour): signed once, not per activity
  const teamsAuth = (await ms.authorization())!;
  const fs = startFakeFeishu({ encryptKey: "bench-encrypt-key" });
  const ln = startFakeLine();
  const hookSecret = "bench-hook-secret";
  /** One entry per answered request (the reply is in the response). */
  const hookReplies: number[] = [];
  let hookSeq = 0;
  const post = (url: string, headers: Record<string, string>, body: string, then?: () => void) =>
    void fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(async (r) => {
      if (r.status !== 200) throw new Error(`${url} answered ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
      then?.();
    });
  const list: Platform[] = [
    { name: "signal", table: `api_base_url = "${sig.url}"\naccount = "${sig.account}"`, env: {}, say: (text) => void sig.message({ source: "+15550000001", text }), replies: () => sig.sends.length, log: sig.sends, ready: () => sig.connections.length > 0, stop: () => sig.stop() },
    { name: "mattermost", table: `token_env = "MM_TOKEN"\napi_base_url = "${mm.url}"`, env: { MM_TOKEN: mm.token }, say: (text) => void mm.post({ user: "u1", channel: "dm1", type: "D", text }), replies: () => mm.posts.length, log: mm.posts, ready: () => mm.connections > 0, stop: () => mm.stop() },
    {
      name: "slack",
      table: `token_env = "SLACK_BOT"\napp_token_env = "SLACK_APP"\napi_base_url = "${slack.url}"`,
      env: { SLACK_BOT: slack.botToken, SLACK_APP: slack.appToken },
      say: (text) => void slack.message({ channel: "D1", user: "U1", text, channel_type: "im" }),
      replies: () => slack.posts.length,
      log: slack.posts,
      ready: () => slack.connections > 0,
      stop: () => slack.stop(),
    },
    { name: "matrix", table: `token_env = "MX_TOKEN"\napi_base_url = "${mx.url}"\npoll_timeout_s = 25`, env: { MX_TOKEN: mx.token }, say: (text) => void mx.message({ room: "!dm:x", sender: "@u:x", body: text, members: 2 }), replies: () => mx.sent.length, log: mx.sent, ready: () => mx.syncs.some((s) => s !== null), stop: () => mx.stop() },
    { name: "discord", table: `token_env = "DC_TOKEN"\napi_base_url = "${dc.url}"`, env: { DC_TOKEN: dc.token }, say: (text) => void dc.message({ channelId: "111", authorId: "222", content: text }), replies: () => dc.posts.length, log: dc.posts, ready: () => dc.identifies > 0, stop: () => dc.stop() },
    {
      name: "webhook",
      table: `secret_env = "HOOK_SECRET"`,
      env: { HOOK_SECRET: hookSecret },
      overHttp: true,
      say: (text, hook) => {
        const body = JSON.stringify({ id: `bench-${++hookSeq}`, sender_id: "shop", text });
        // the reply comes back in the response
        post(hook, signPrx(hookSecret, body, Date.now()), body, () => hookReplies.push(1));
      },
      replies: () => hookReplies.length,
      log: hookReplies,
      stop: async () => {},
    },
    {
      name: "whatsapp",
      table: `token_env = "WA_TOKEN"\nsecret_env = "WA_SECRET"\nverify_token_env = "WA_VERIFY"\nphone_number_id = "${wa.phoneNumberId}"\napi_base_url = "${wa.url}"`,
      env: { WA_TOKEN: wa.token, WA_SECRET: wa.appSecret, WA_VERIFY: wa.verifyToken },
      overHttp: true,
      say: (text, hook) => void wa.deliver(hook, wa.notification([wa.text("15557770001", text)])).then((r) => r.arrayBuffer()),
      replies: () => wa.sent.length,
      log: wa.sent,
      stop: () => wa.stop(),
    },
    {
      name: "teams",
      table: `app_id = "${ms.appId}"\nsecret_env = "TEAMS_PW"\nopenid_url = "${ms.url}/v1/.well-known/openidconfiguration"\ntoken_url = "${ms.url}/botframework.com/oauth2/v2.0/token"`,
      env: { TEAMS_PW: ms.password },
      overHttp: true,
      say: (text, hook) => post(hook, { authorization: teamsAuth }, JSON.stringify(ms.activity({ from: "29:h", text }))),
      replies: () => ms.sent.filter((s) => s.type === "message").length,
      log: ms.sent,
      stop: () => ms.stop(),
    },
    {
      name: "feishu",
      table: `app_id = "${fs.appId}"\nsecret_env = "FS_SECRET"\nverify_token_env = "FS_VERIFY"\nencrypt_key_env = "FS_ENCRYPT"\napi_base_url = "${fs.url}"`,
      env: { FS_SECRET: fs.appSecret, FS_VERIFY: fs.verificationToken, FS_ENCRYPT: fs.encryptKey! },
      overHttp: true,
      // encrypted and signed, as the Open Platform sends events once an Encrypt Key is set
      say: (text, hook) => void fs.deliver(hook, fs.message({ from: "ou_bench", text })).then((r) => r.arrayBuffer()),
      replies: () => fs.sent.length,
      log: fs.sent,
      stop: () => fs.stop(),
    },
    {
      name: "line",
      table: `token_env = "LINE_TOKEN"\nsecret_env = "LINE_SECRET"\napi_base_url = "${ln.url}"\ndata_api_url = "${ln.url}"`,
      env: { LINE_TOKEN: ln.token, LINE_SECRET: ln.channelSecret },
      overHttp: true,
      say: (text, hook) => void ln.deliver(hook, [ln.event({ from: "U1", text })]).then((r) => r.arrayBuffer()),
      replies: () => ln.sent.length,
      log: ln.sent,
      stop: () => ln.stop(),
    },
  ];
  // the Google Chat fake makes its X.509 certificates with openssl
  if (Bun.which("openssl")) {
    const gc = startFakeGoogleChat();
    let gcAuth = "";
    list.push({
      name: "googlechat",
      table: `secret_env = "GC_KEY"\nproject_number = "${gc.projectNumber}"\ncerts_url = "${gc.url}/service_accounts/v1/metadata/x509/${CHAT_ISSUER}"\napi_base_url = "${gc.url}"`,
      env: { GC_KEY: gc.serviceAccountKey },
      overHttp: true,
      // Chat's token is signed by Google, not timed as prx's: signed for each message before the clock starts
      prepare: () => (gcAuth = gc.authorization({ projectNumber: gc.projectNumber })!),
      say: (text, hook) => post(hook, { authorization: gcAuth, "user-agent": "Google-Dynamite" }, JSON.stringify(gc.message({ from: "users/1", text }))),
      replies: () => gc.sent.length,
      log: gc.sent,
      stop: () => gc.stop(),
    });
  } else console.log("  googlechat: openssl is not installed; its rows are left out");
  if (NGIRCD) {
    const server = await startNgircd();
    const person = await ircPerson(server.port, "ada");
    const alone = await ircPerson(server.port, "bob");
    const echo = await echoProcess(server.port, "echo");
    let floorSeq = 0;
    list.push({
      name: "irc",
      table: `server = "127.0.0.1:${server.port}"\ntls = false\nnick = "prxbot"`,
      env: {},
      say: (text) => person.say("prxbot", text),
      replies: () => person.heard("prxbot").length,
      // prx's bucket is full again after IRC_SEND_BURST intervals; three short lines stay under ngIRCd's limits (3
      // commands in one read, 256 bytes a second, for each client)
      paced: { burst: IRC_SEND_BURST, pauseMs: IRC_SEND_BURST * IRC_SEND_INTERVAL_MS },
      floor: () => roundTrip(() => alone.say("echo", `relay ${++floorSeq}`), () => alone.heard("echo").length),
      stop: async () => {
        for (const client of [person, alone, echo]) client.quit();
        await server.close();
      },
    });
  } else console.log("  irc: ngircd is not installed; its rows are left out");
  return list;
}

/** Calls `then` after each push onto `list` (a fake's record of the calls it received). */
function onPush(list: unknown[], then: () => void): void {
  const push = list.push.bind(list);
  list.push = (...items: unknown[]) => {
    const length = push(...items);
    then();
    return length;
  };
}

/** irc-echo.ts in a process of its own, registered as `nick`. */
async function echoProcess(port: number, nick: string): Promise<{ quit(): void }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "irc-echo.ts"), String(port), nick], { stdout: "pipe", stderr: "inherit" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  for (let out = ""; !out.includes("ready"); ) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the IRC echo client exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  return { quit: () => proc.kill() };
}

/**
 * Milliseconds from `say` until `replies()` grows: as the fake timed the call that made it grow where `arrivals` holds
 * such times (each push onto its log, with the reply count after it), else as polling every millisecond finds it.
 */
async function roundTrip(say: () => void, replies: () => number, what = "the reply", arrivals?: Array<[number, number]>): Promise<number> {
  const before = replies();
  if (arrivals) arrivals.length = 0;
  const t0 = performance.now();
  say();
  // polled every millisecond: waitFor's backoff would round the reply's arrival up by up to 50 ms
  const deadline = t0 + 30_000;
  while (replies() <= before) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(1);
  }
  const arrived = arrivals?.find(([, count]) => count > before)?.[0];
  return (arrived ?? performance.now()) - t0;
}

/** Start the channel: `prx channel run`, or for a platform that receives over HTTP a gateway running it. */
async function startChannel(o: { binary: string; dir: string; env: Record<string, string>; name: string; overHttp: boolean }) {
  if (!o.overHttp) {
    const proc = Bun.spawn([o.binary, "channel", "run", o.name, "-w", o.dir], { env: o.env, stdout: "pipe", stderr: process.env.BENCH_CHANNEL_STDERR ? "inherit" : "ignore" });
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!out.includes(" running")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`prx channel run ${o.name} exited: ${out}`);
      out += new TextDecoder().decode(value);
    }
    return { pid: proc.pid, hook: "", stop: async () => void (proc.kill("SIGKILL"), await proc.exited) };
  }
  const proc = Bun.spawn([o.binary, "gateway", "--port", "0", "-w", o.dir], { env: o.env, stdout: "pipe", stderr: "ignore" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!/pairing code: ([A-Z2-9]{8})/.test(out)) out += new TextDecoder().decode((await reader.read()).value);
  const url = /listening on (\S+)/.exec(out)![1]!;
  const code = /pairing code: ([A-Z2-9]{8})/.exec(out)![1]!;
  const token = ((await (await fetch(`${url}/pair`, { method: "POST", headers: { "x-pairing-code": code } })).json()) as { token: string }).token;
  let pid = 0;
  for (const deadline = Date.now() + 30_000; !pid; await Bun.sleep(50)) {
    if (Date.now() > deadline) throw new Error(`the gateway's ${o.name} channel did not start`);
    const { channels } = (await (await fetch(`${url}/api/channels`, { headers: { authorization: `Bearer ${token}` } })).json()) as { channels: Array<{ name: string; state: string; pid: number; stats: unknown }> };
    const info = channels.find((c) => c.name === o.name);
    if (info?.state === "running" && info.stats !== null) pid = info.pid;
  }
  return { pid, hook: `${url}/channels/${o.name}/webhook`, stop: async () => void (proc.kill("SIGKILL"), await proc.exited) };
}

export async function platformRows(o: { binary: string; tmp: string; provider: FakeServer; messages: number; gatewayRss: number; only?: string[] }): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const all = await platforms();
  try {
    for (const p of all) {
      const only = o.only ?? process.env.BENCH_CHANNELS?.split(",");
      if (only && !only.includes(p.name)) continue;
      const dir = join(o.tmp, p.name);
      mkdirSync(dir);
      writeFileSync(
        join(dir, "config.toml"),
        `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${o.provider.url}"\n` +
          `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[gateway]\nrate_limit_per_minute = 1000000\nrate_limit_per_token_per_minute = 1000000\n` +
          `[channels.${p.name}]\nkind = "${p.name}"\n${p.overHttp ? "enabled = true\n" : ""}dm_policy = "open"\n${p.table}\n`,
      );
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ...p.env };
      const channel = await startChannel({ binary: o.binary, dir, env, name: p.name, overHttp: p.overHttp ?? false });
      try {
        for (const until = Date.now() + 30_000; p.ready && !p.ready(); await Bun.sleep(10)) {
          if (Date.now() > until) throw new Error(`${p.name}: the channel's receiving connection did not open`);
        }
        await Bun.sleep(300);
        const overheads: number[] = [];
        const floors: number[] = [];
        const arrivals: Array<[number, number]> = [];
        if (p.log) onPush(p.log, () => arrivals.push([performance.now(), p.replies()]));
        for (let i = 0; i < o.messages + 5; i++) {
          const text = `latency ${p.name} ${i}`;
          p.prepare?.();
          const total = await roundTrip(() => p.say(text, channel.hook), p.replies, `the ${p.name} reply to message ${i}`, p.log ? arrivals : undefined);
          const handled = handledByLastText(o.provider).find(([t]) => t === text)?.[1] ?? 0;
          // the first turns warm the JIT up
          if (i >= 5) overheads.push(total - handled);
          if (i >= 5 && p.floor) floors.push(await p.floor());
          if (p.paced && i % p.paced.burst === p.paced.burst - 1) await Bun.sleep(p.paced.pauseMs);
        }
        Bun.gc(true);
        await Bun.sleep(1000);
        const rss = rssMb(channel.pid);
        const s = stats(overheads);
        const seen = p.name === "irc" ? "the ngIRCd client" : p.name === "webhook" ? "the HTTP response" : "the fake";
        const via = p.overHttp ? ", through the gateway's webhook route" : "";
        const paced = p.paced ? ` (back to back in groups of ${p.paced.burst}, ${p.paced.pauseMs} ms apart: the flood control's burst)` : "";
        const note = `p99 ${s.p99.toFixed(1)} ms; ${o.messages} sequential messages${paced}${via}, reply seen by ${seen}`;
        if (p.floor) {
          const floor = stats(floors).p50;
          rows.push({ suite: "channels", name: ircRawRow, value: s.p50, unit: "ms", note });
          rows.push({ suite: "channels", name: overheadRow(p.name), value: s.p50 - floor, unit: "ms", target: { op: "<=", value: 5 }, note: `${note}; raw p50 ${s.p50.toFixed(2)} ms minus the relay's p50 ${floor.toFixed(2)} ms (a bare client in its own process in prx's place, measured after each message)` });
        } else rows.push({ suite: "channels", name: overheadRow(p.name), value: s.p50, unit: "ms", target: { op: "<=", value: 5 }, note });
        rows.push({ suite: "channels", name: rssRow(p.name), value: rss / o.gatewayRss, unit: "count", target: { op: "<=", value: 1.5 }, note: `channel ${rss.toFixed(1)} MB, gateway idle ${o.gatewayRss.toFixed(1)} MB` });
      } finally {
        await channel.stop();
      }
    }
  } finally {
    for (const p of all) await p.stop();
  }
  return rows;
}

/** `bun test/bench/channel-platforms.ts <binary> <platform,...> [messages]`: those platforms' rows alone (A/B runs). */
if (import.meta.main) {
  const [binary, names, messages = "100"] = process.argv.slice(2);
  if (!binary || !names) {
    console.error("usage: bun test/bench/channel-platforms.ts <binary> <platform,...> [messages]");
    process.exit(2);
  }
  const tmp = mkdtempSync(join(tmpdir(), "prx-platforms-"));
  const provider = startFakeOpenAI({ latencyMs: 5 });
  try {
    const rows = await platformRows({ binary: resolve(binary), tmp, provider, messages: Number(messages), gatewayRss: NaN, only: names.split(",") });
    for (const row of rows.filter((r) => r.unit === "ms")) console.log(`${row.name}: ${row.value.toFixed(2)} ms (${row.note})`);
  } finally {
    await provider.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * One row pair per platform of `bun run bench channels` besides Telegram and email, each through `prx channel run`
 * against its fake (or, for IRC, a real ngIRCd): inbound-to-reply minus the provider's time for the turn, p50, and the
 * channel process's RSS against an idle gateway's. Platforms that receive through the gateway's webhook route are
 * measured in channel-webhooks.ts (WhatsApp is not); Discord needs its Gateway session scripted and is left out.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { handledByLastText } from "../fakes/common.ts";
import { startFakeMatrix } from "../fakes/matrix-server.ts";
import { startFakeMattermost } from "../fakes/mattermost-server.ts";
import type { FakeServer } from "../fakes/openai-server.ts";
import { startFakeSignal } from "../fakes/signal-server.ts";
import { startFakeSlack } from "../fakes/slack-server.ts";
import { ircPerson, NGIRCD, startNgircd } from "../helpers/ngircd.ts";
import { rssMb } from "./channel-bursts.ts";
import { stats, type BenchRow } from "./types.ts";

interface Platform {
  name: string;
  /** The [channels.<name>] table's keys after kind. */
  table: string;
  env: Record<string, string>;
  say(text: string): void;
  replies(): number;
  /** Least time between two replies the platform's client keeps (IRC's flood control). */
  spacingMs?: number;
  stop(): Promise<void>;
}


async function platforms(): Promise<Platform[]> {
  const sig = startFakeSignal();
  const mm = startFakeMattermost();
  const slack = startFakeSlack();
  const mx = startFakeMatrix();
  const list: Platform[] = [
    { name: "signal", table: `api_base_url = "${sig.url}"\naccount = "${sig.account}"`, env: {}, say: (text) => void sig.message({ source: "+15550000001", text }), replies: () => sig.sends.length, stop: () => sig.stop() },
    { name: "mattermost", table: `token_env = "MM_TOKEN"\napi_base_url = "${mm.url}"`, env: { MM_TOKEN: mm.token }, say: (text) => void mm.post({ user: "u1", channel: "dm1", type: "D", text }), replies: () => mm.posts.length, stop: () => mm.stop() },
    {
      name: "slack",
      table: `token_env = "SLACK_BOT"\napp_token_env = "SLACK_APP"\napi_base_url = "${slack.url}"`,
      env: { SLACK_BOT: slack.botToken, SLACK_APP: slack.appToken },
      say: (text) => void slack.message({ channel: "D1", user: "U1", text, channel_type: "im" }),
      replies: () => slack.posts.length,
      stop: () => slack.stop(),
    },
    { name: "matrix", table: `token_env = "MX_TOKEN"\napi_base_url = "${mx.url}"\npoll_timeout_s = 25`, env: { MX_TOKEN: mx.token }, say: (text) => void mx.message({ room: "!dm:x", sender: "@u:x", body: text, members: 2 }), replies: () => mx.sent.length, stop: () => mx.stop() },
  ];
  if (NGIRCD) {
    const server = await startNgircd();
    const person = await ircPerson(server.port, "ada");
    list.push({
      name: "irc",
      table: `server = "127.0.0.1:${server.port}"\ntls = false\nnick = "prxbot"`,
      env: {},
      say: (text) => person.say("prxbot", text),
      replies: () => person.heard("prxbot").length,
      spacingMs: 300,
      stop: async () => {
        person.quit();
        await server.close();
      },
    });
  } else console.log("  irc: ngircd is not installed; its rows are left out");
  return list;
}

export async function platformRows(o: { binary: string; tmp: string; provider: FakeServer; messages: number; gatewayRss: number }): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const all = await platforms();
  try {
    for (const p of all) {
      const dir = join(o.tmp, p.name);
      mkdirSync(dir);
      writeFileSync(
        join(dir, "config.toml"),
        `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${o.provider.url}"\n` +
          `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[channels.${p.name}]\nkind = "${p.name}"\ndm_policy = "open"\n${p.table}\n`,
      );
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ...p.env };
      const channel = Bun.spawn([o.binary, "channel", "run", p.name, "-w", dir], { env, stdout: "pipe", stderr: "ignore" });
      try {
        const reader = (channel.stdout as ReadableStream<Uint8Array>).getReader();
        let out = "";
        while (!out.includes(" running")) out += new TextDecoder().decode((await reader.read()).value);
        await Bun.sleep(300);
        const overheads: number[] = [];
        for (let i = 0; i < o.messages + 5; i++) {
          const text = `latency ${p.name} ${i}`;
          const before = p.replies();
          const t0 = performance.now();
          p.say(text);
          // polled every millisecond: waitFor's backoff would round the reply's arrival up by up to 50 ms
          const deadline = t0 + 30_000;
          while (p.replies() <= before) {
            if (performance.now() > deadline) throw new Error(`timed out waiting for the ${p.name} reply`);
            await Bun.sleep(1);
          }
          const total = performance.now() - t0;
          const handled = handledByLastText(o.provider).find(([t]) => t === text)?.[1] ?? 0;
          if (i >= 5) overheads.push(total - handled); // the first turns warm the JIT up
          if (p.spacingMs) await Bun.sleep(p.spacingMs);
        }
        Bun.gc(true);
        await Bun.sleep(1000);
        const rss = rssMb(channel.pid);
        const s = stats(overheads);
        rows.push({ suite: "channels", name: `${p.name}: inbound-to-reply minus provider time, p50`, value: s.p50, unit: "ms", target: { op: "<=", value: 5 }, note: `p99 ${s.p99.toFixed(1)} ms; ${o.messages} sequential messages, reply seen by the ${p.name === "irc" ? "ngIRCd client" : "fake"}` });
        rows.push({ suite: "channels", name: `${p.name}: channel process RSS / gateway idle RSS`, value: rss / o.gatewayRss, unit: "count", target: { op: "<=", value: 1.5 }, note: `channel ${rss.toFixed(1)} MB, gateway idle ${o.gatewayRss.toFixed(1)} MB` });
      } finally {
        channel.kill("SIGKILL");
        await channel.exited;
      }
    }
  } finally {
    for (const p of all) await p.stop();
  }
  return rows;
}

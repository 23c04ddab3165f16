/**
 * Feishu / Lark's rows of `bun run bench channels`: the channel supervised by a gateway (its events come through the
 * gateway's /channels/<name>/webhook and over IPC to the channel process), against the fake Open Platform with an
 * Encrypt Key (each event encrypted and signed): event POSTed -> reply received by the fake, minus the provider's time
 * for the turn, p50; and the channel process's RSS against an idle gateway's.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { handledByLastText } from "../fakes/common.ts";
import { startFakeFeishu } from "../fakes/feishu-server.ts";
import type { FakeServer } from "../fakes/openai-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { rssMb } from "./channel-bursts.ts";
import { stats, type BenchRow } from "./types.ts";

export async function feishuRows(o: { binary: string; tmp: string; provider: FakeServer; messages: number; gatewayRss: number }): Promise<BenchRow[]> {
  const fs = startFakeFeishu({ encryptKey: "bench-encrypt-key" });
  const dir = join(o.tmp, "feishu");
  mkdirSync(dir);
  writeFileSync(
    join(dir, "config.toml"),
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${o.provider.url}"\n` +
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[gateway]\nrate_limit_per_minute = 1000000\nrate_limit_per_token_per_minute = 1000000\n` +
      `[channels.fs]\nkind = "feishu"\nenabled = true\napp_id = "${fs.appId}"\nsecret_env = "FS_SECRET"\nverify_token_env = "FS_VERIFY"\n` +
      `encrypt_key_env = "FS_ENCRYPT"\napi_base_url = "${fs.url}"\ndm_policy = "open"\n`,
  );
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, FS_SECRET: fs.appSecret, FS_VERIFY: fs.verificationToken, FS_ENCRYPT: fs.encryptKey! };
  const gateway = Bun.spawn([o.binary, "gateway", "--port", "0", "-w", dir], { env, stdout: "pipe", stderr: "ignore" });
  try {
    const reader = (gateway.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!/pairing code: ([A-Z2-9]{8})/.test(out)) out += new TextDecoder().decode((await reader.read()).value);
    const url = /prx gateway listening on (\S+)/.exec(out)![1]!;
    const code = /pairing code: ([A-Z2-9]{8})/.exec(out)![1]!;
    const token = ((await (await fetch(`${url}/pair`, { method: "POST", headers: { "x-pairing-code": code } })).json()) as { token: string }).token;
    const info = async () =>
      ((await (await fetch(`${url}/api/channels`, { headers: { authorization: `Bearer ${token}` } })).json()) as { channels: Array<{ name: string; state: string; pid: number; stats: unknown }> }).channels.find((c) => c.name === "fs");
    const running = await waitFor(async () => {
      const c = await info();
      return c?.state === "running" && c.stats !== null && c;
    }, "the feishu channel running");
    const hook = `${url}/channels/fs/webhook`;
    const overheads: number[] = [];
    for (let i = 0; i < o.messages + 5; i++) {
      const text = `latency feishu ${i}`;
      const before = fs.sent.length;
      const t0 = performance.now();
      const posted = fs.deliver(hook, fs.message({ from: "ou_bench", text }));
      // polled every millisecond: waitFor's backoff would round the reply's arrival up by up to 50 ms
      const deadline = t0 + 30_000;
      while (fs.sent.length <= before) {
        if (performance.now() > deadline) throw new Error("timed out waiting for the feishu reply");
        await Bun.sleep(1);
      }
      const total = performance.now() - t0;
      if ((await posted).status !== 200) throw new Error("the feishu event was not accepted");
      const handled = handledByLastText(o.provider).find(([t]) => t === text)?.[1] ?? 0;
      if (i >= 5) overheads.push(total - handled); // the first turns warm the JIT up
    }
    Bun.gc(true);
    await Bun.sleep(1000);
    const rss = rssMb(running.pid);
    const s = stats(overheads);
    return [
      {
        suite: "channels",
        name: "feishu: event POSTed -> reply, minus provider time, p50",
        value: s.p50,
        unit: "ms",
        target: { op: "<=", value: 5 },
        note: `p99 ${s.p99.toFixed(1)} ms; ${o.messages} sequential encrypted, signed events through the gateway's webhook route and IPC`,
      },
      { suite: "channels", name: "feishu: channel process RSS / gateway idle RSS", value: rss / o.gatewayRss, unit: "count", target: { op: "<=", value: 1.5 }, note: `channel ${rss.toFixed(1)} MB, gateway idle ${o.gatewayRss.toFixed(1)} MB` },
    ];
  } finally {
    gateway.kill("SIGTERM");
    await gateway.exited;
    await fs.stop();
  }
}

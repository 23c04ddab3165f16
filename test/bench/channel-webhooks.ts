/**
 * The rows of `bun run bench channels` for platforms that receive through the gateway's webhook route (Google Chat,
 * LINE, and Teams beside them as their reference): one gateway supervising the channel processes, each event POSTed to `/channels/<name>/webhook` as its
 * platform signs it, the reply seen by the platform's fake. Inbound-to-reply minus the provider's time for the turn
 * (it includes the gateway's hop to the channel process), p50, and the channel process's RSS against an idle gateway's.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { handledByLastText } from "../fakes/common.ts";
import { CHAT_ISSUER, startFakeGoogleChat } from "../fakes/googlechat-server.ts";
import { startFakeLine } from "../fakes/line-server.ts";
import { startFakeTeams } from "../fakes/teams-server.ts";
import type { FakeServer } from "../fakes/openai-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { rssMb } from "./channel-bursts.ts";
import { stats, type BenchRow } from "./types.ts";

export async function webhookPlatformRows(o: { binary: string; tmp: string; provider: FakeServer; messages: number; gatewayRss: number }): Promise<BenchRow[]> {
  if (!Bun.which("openssl")) {
    console.log("  googlechat, line: openssl is not installed (the Google Chat fake makes its certificates with it); their rows are left out");
    return [];
  }
  const gc = startFakeGoogleChat();
  const ln = startFakeLine();
  const ms = await startFakeTeams();
  const dir = join(o.tmp, "webhook-platforms");
  mkdirSync(dir);
  writeFileSync(
    join(dir, "config.toml"),
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${o.provider.url}"\n` +
      // every platform POSTs from 127.0.0.1 here: the per-address limit would throttle the run, not a platform
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[gateway]\nrate_limit_per_minute = 1000000\n` +
      `[channels.googlechat]\nenabled = true\ndm_policy = "open"\nsecret_env = "GC_KEY"\nproject_number = "${gc.projectNumber}"\n` +
      `certs_url = "${gc.url}/service_accounts/v1/metadata/x509/${CHAT_ISSUER}"\napi_base_url = "${gc.url}"\n` +
      `[channels.line]\nenabled = true\ndm_policy = "open"\ntoken_env = "LINE_TOKEN"\nsecret_env = "LINE_SECRET"\napi_base_url = "${ln.url}"\ndata_api_url = "${ln.url}"\n` +
      `[channels.teams]\nenabled = true\ndm_policy = "open"\napp_id = "${ms.appId}"\nsecret_env = "TEAMS_PW"\n` +
      `openid_url = "${ms.url}/v1/.well-known/openidconfiguration"\ntoken_url = "${ms.url}/botframework.com/oauth2/v2.0/token"\n`,
  );
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GC_KEY: gc.serviceAccountKey, LINE_TOKEN: ln.token, LINE_SECRET: ln.channelSecret, TEAMS_PW: ms.password };
  const gateway = Bun.spawn([o.binary, "gateway", "--port", "0", "-w", dir], { env, stdout: "pipe", stderr: "ignore" });
  const rows: BenchRow[] = [];
  try {
    const reader = (gateway.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!/pairing code: ([A-Z2-9]{8})/.test(out)) out += new TextDecoder().decode((await reader.read()).value);
    const url = /listening on (\S+)/.exec(out)![1]!;
    const code = /pairing code: ([A-Z2-9]{8})/.exec(out)![1]!;
    const token = ((await (await fetch(`${url}/pair`, { method: "POST", headers: { "x-pairing-code": code } })).json()) as { token: string }).token;
    const channels = async () =>
      ((await (await fetch(`${url}/api/channels`, { headers: { authorization: `Bearer ${token}` } })).json()) as { channels: Array<{ name: string; state: string; pid: number; stats: unknown }> }).channels;
    await waitFor(async () => (await channels()).every((c) => c.state === "running" && c.stats !== null), "googlechat, line and teams running", 60_000);
    const platforms = [
      { name: "googlechat", say: (text: string) => gc.deliver(`${url}/channels/googlechat/webhook`, gc.message({ from: "users/1", text })), replies: () => gc.sent.length },
      { name: "line", say: (text: string) => ln.deliver(`${url}/channels/line/webhook`, [ln.event({ from: "U1", text })]), replies: () => ln.sent.length },
      { name: "teams", say: (text: string) => ms.deliver(`${url}/channels/teams/webhook`, ms.activity({ from: "29:u1", text })), replies: () => ms.sent.filter((a) => a.type === "message").length },
    ];
    for (const p of platforms) {
      const overheads: number[] = [];
      for (let i = 0; i < o.messages + 5; i++) {
        const text = `latency ${p.name} ${i}`;
        const before = p.replies();
        const t0 = performance.now();
        const posted = p.say(text);
        // polled every millisecond: waitFor's backoff would round the reply's arrival up by up to 50 ms
        const deadline = t0 + 30_000;
        while (p.replies() <= before) {
          if (performance.now() > deadline) throw new Error(`timed out waiting for the ${p.name} reply (webhook answered ${(await posted).status}: ${await (await posted).text()})`);
          await Bun.sleep(1);
        }
        const total = performance.now() - t0;
        if ((await posted).status !== 200) throw new Error(`the ${p.name} webhook did not answer 200`);
        const handled = handledByLastText(o.provider).find(([t]) => t === text)?.[1] ?? 0;
        if (i >= 5) overheads.push(total - handled); // the first turns warm the JIT up
      }
      Bun.gc(true);
      await Bun.sleep(1000);
      const pid = (await channels()).find((c) => c.name === p.name)!.pid;
      const rss = rssMb(pid);
      const s = stats(overheads);
      rows.push({ suite: "channels", name: `${p.name}: inbound-to-reply minus provider time, p50`, value: s.p50, unit: "ms", target: { op: "<=", value: 5 }, note: `p99 ${s.p99.toFixed(1)} ms; ${o.messages} sequential events through the gateway's webhook route, reply seen by the fake` });
      rows.push({ suite: "channels", name: `${p.name}: channel process RSS / gateway idle RSS`, value: rss / o.gatewayRss, unit: "count", target: { op: "<=", value: 1.5 }, note: `channel ${rss.toFixed(1)} MB, gateway idle ${o.gatewayRss.toFixed(1)} MB` });
    }
  } finally {
    gateway.kill("SIGTERM");
    await gateway.exited;
    await gc.stop();
    await ln.stop();
    await ms.stop();
  }
  return rows;
}

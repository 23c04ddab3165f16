/**
 * The platform time limits by their effect, with shorter limits passed in: a request nobody answers is abandoned and
 * retried (each platform client, a Telegram send, the webhook callback), a long poll that outlives its timeout is
 * abandoned, and a WebSocket platform that cannot connect still starts once the first-connect wait is over.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PLATFORM_FIRST_CONNECT_WAIT_MS, PLATFORM_LONG_POLL_SLACK_MS, PLATFORM_REQUEST_TIMEOUT_MS } from "../../src/channels/limits.ts";
import { DiscordRest } from "../../src/channels/discord/rest.ts";
import { matrixCall } from "../../src/channels/matrix/api.ts";
import { PlatformError } from "../../src/channels/platform-error.ts";
import { signPrx } from "../../src/channels/signature.ts";
import { slackCall } from "../../src/channels/slack/api.ts";
import { TelegramApi } from "../../src/channels/telegram/api.ts";
import { z } from "zod";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { waitFor } from "../helpers/wait.ts";

let h: ChannelHarness | null = null;
let tg: FakeTelegram | null = null;
const servers: Array<{ stop(force?: boolean): unknown }> = [];
afterEach(async () => {
  await h?.close();
  await tg?.stop();
  for (const server of servers.splice(0)) await server.stop(true);
  h = tg = null;
});

/** A server that answers `route` and leaves every other request open until the client gives up. */
function silentServer(route: (request: Request, url: string) => Response | null = () => null): string {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const answer = route(request, `http://127.0.0.1:${server.port}`);
      if (answer) return answer;
      await new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve(), { once: true }));
      return new Response(null, { status: 499 });
    },
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

/** A port on which nothing listens (a server was there a moment ago). */
function deadPort(): number {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port!;
  server.stop(true);
  return port;
}

describe(`platform requests (${PLATFORM_REQUEST_TIMEOUT_MS} ms)`, () => {
  test("every platform client abandons a request unanswered within the time it is given, as a retryable timeout", async () => {
    const base = silentServer();
    const attempts: Array<[string, Promise<unknown>]> = [
      ["telegram", new TelegramApi(base, "1:t").call("getMe", {}, z.unknown(), 100)],
      ["slack", slackCall(base, "xoxb", "auth.test", {}, z.unknown(), undefined, 100)],
      ["discord", new DiscordRest(base, "t", 100).request("GET", "/gateway/bot", undefined, z.unknown(), "gateway")],
      ["matrix", matrixCall(base, "t", "GET", "/_matrix/client/v3/account/whoami", undefined, z.unknown(), 100)],
    ];
    for (const [platform, attempt] of attempts) {
      const error = await attempt.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(PlatformError);
      expect(error).toMatchObject({ platform, retryable: true, httpStatus: null, code: "CHANNEL_TIMEOUT" });
      expect((error as Error).message).toContain("no complete answer within 100 ms");
    }
  });

  test("a Telegram send that is never answered is abandoned after the limit (shorter here) and sent again: one reply", async () => {
    tg = startFakeTelegram();
    tg.fail("sendMessage", { status: 0, description: "", hang: true });
    h = channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
    const running = await h.start("telegram", { TG: tg.token }, { requestTimeoutMs: 300 });
    tg.message({ chatId: 3, text: "are you there?" });
    await tg.waitForSent(1);
    await running.runner.idle();
    expect(tg.calls.filter((c) => c.method === "sendMessage")).toHaveLength(2);
    expect(tg.sent.map((s) => s.visible)).toEqual(["echo: are you there?"]);
  });

  test("a webhook callback that is never answered is abandoned after the limit (shorter here) and POSTed again", async () => {
    let calls = 0;
    const received: string[] = [];
    const callback = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const body = await request.text();
        if (++calls === 1) await new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve(), { once: true }));
        else received.push(body);
        return new Response("ok");
      },
    });
    servers.push(callback);
    h = channelHarness(`[channels.hook]\nkind = "webhook"\nsecret_env = "S"\ndm_policy = "open"\ncallback_url = "http://127.0.0.1:${callback.port}/r"\n`);
    const running = await h.start("hook", { S: "s" }, { requestTimeoutMs: 300 });
    const body = JSON.stringify({ id: "cb", sender_id: "crm", text: "ping" });
    expect((await running.channel.handleHttp!({ method: "POST", headers: signPrx("s", body, Date.now()), body })).status).toBe(202);
    await waitFor(() => received.length === 1, "the callback to be POSTed again");
    await running.runner.idle();
    expect(calls).toBe(2);
    expect(JSON.parse(received[0]!).text).toBe("echo: ping");
  });
});

describe(`long polls (${PLATFORM_LONG_POLL_SLACK_MS} ms past their own timeout)`, () => {
  test("a getUpdates that outlives its timeout plus the slack (shorter here) is abandoned and polled again", async () => {
    tg = startFakeTelegram();
    tg.fail("getUpdates", { status: 0, description: "", hang: true });
    h = channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
    await h.start("telegram", { TG: tg.token }, { longPollSlackMs: 200 });
    tg.message({ chatId: 4, text: "after the silent poll" });
    const [reply] = await tg.waitForSent(1);
    expect(reply!.visible).toBe("echo: after the silent poll");
    expect(tg.calls.filter((c) => c.method === "getUpdates").length).toBeGreaterThanOrEqual(2);
  });
});

describe(`first connection of a WebSocket platform (${PLATFORM_FIRST_CONNECT_WAIT_MS} ms)`, () => {
  const dead = () => `ws://127.0.0.1:${deadPort()}/`;

  test("a Discord process whose gateway cannot be reached still starts after the wait (shorter here), reporting it", async () => {
    const url = dead();
    const api = silentServer((request) => (new URL(request.url).pathname === "/gateway/bot" ? Response.json({ url, shards: 1 }) : null));
    h = channelHarness(`[channels.discord]\ntoken_env = "D"\napi_base_url = "${api}"\ndm_policy = "open"\n`);
    const discord = await h.start("discord", { D: "t" }, { firstConnectWaitMs: 200 });
    expect(discord.channel.health().ok).toBe(false);
  });

  test("a Slack process whose socket cannot connect still starts after the wait (shorter here), reporting it", async () => {
    const url = dead();
    const api = silentServer((request) => {
      const method = new URL(request.url).pathname.slice(1);
      if (method === "auth.test") return Response.json({ ok: true, user_id: "UBOT" });
      if (method === "apps.connections.open") return Response.json({ ok: true, url });
      return null;
    });
    h = channelHarness(`[channels.slack]\ntoken_env = "SB"\napp_token_env = "SA"\napi_base_url = "${api}"\ndm_policy = "open"\n`);
    const slack = await h.start("slack", { SB: "xoxb", SA: "xapp" }, { firstConnectWaitMs: 200 });
    expect(slack.channel.health()).toMatchObject({ ok: false, detail: expect.stringContaining("reconnecting") });
  });
});

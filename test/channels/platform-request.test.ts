/**
 * Every platform answer is read within PLATFORM_MAX_RESPONSE_BYTES (streamed, the connection closed at the first byte
 * past it) and the call's time cap, with errors naming the cap and the platform.
 */
import { afterAll, expect, test } from "bun:test";
import { z } from "zod";
import { DiscordRest } from "../../src/channels/discord/rest.ts";
import { PLATFORM_MAX_RESPONSE_BYTES } from "../../src/channels/limits.ts";
import { matrixCall } from "../../src/channels/matrix/api.ts";
import { PlatformError } from "../../src/channels/platform-error.ts";
import { slackCall } from "../../src/channels/slack/api.ts";
import { TelegramApi } from "../../src/channels/telegram/api.ts";
import { TelegramUpdatesSchema } from "../../src/channels/telegram/wire.ts";
import { startFakeTelegram } from "../fakes/telegram-server.ts";

const tg = startFakeTelegram();
/** Any path: `{"ok":true}` padded with spaces to ?n= bytes, streamed; ?stall=1 sends a first chunk and then nothing. */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const url = new URL(request.url);
    const total = Number(url.searchParams.get("n") ?? "0");
    const stall = url.searchParams.has("stall");
    let left = total;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (left === total) {
          controller.enqueue(new TextEncoder().encode('{"ok":true}'));
          left -= 11;
          return;
        }
        if (stall) return new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve(), { once: true }));
        if (left <= 0) return controller.close();
        const size = Math.min(left, chunk.length);
        controller.enqueue(chunk.subarray(0, size));
        left -= size;
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  },
});
const base = `http://127.0.0.1:${server.port}`;
afterAll(async () => {
  server.stop(true);
  await tg.stop();
});

const caught = (p: Promise<unknown>) => p.then(() => null, (e: PlatformError) => e);

test("telegram getUpdates: an answer of exactly PLATFORM_MAX_RESPONSE_BYTES is read; one byte more is refused, naming the cap", async () => {
  const api = new TelegramApi(tg.url, tg.token);
  tg.fail("getUpdates", { status: 200, description: "", streamBytes: PLATFORM_MAX_RESPONSE_BYTES });
  expect(await api.call("getUpdates", {}, TelegramUpdatesSchema, 30_000)).toEqual([]);
  tg.fail("getUpdates", { status: 200, description: "", streamBytes: PLATFORM_MAX_RESPONSE_BYTES + 1 });
  const error = await caught(api.call("getUpdates", {}, TelegramUpdatesSchema, 30_000));
  expect(error).toBeInstanceOf(PlatformError);
  expect(error!.code).toBe("CHANNEL_RESPONSE_TOO_LARGE");
  expect(error!.message).toBe(`telegram: getUpdates: HTTP 200 answer larger than ${PLATFORM_MAX_RESPONSE_BYTES} bytes; not read further`);
  expect(error!.details).toEqual({ platform: "telegram" });
  expect(error!.retryable).toBe(false);
});

test("discord, slack and matrix answers are capped the same way", async () => {
  const at = `?n=${PLATFORM_MAX_RESPONSE_BYTES}`;
  const past = `?n=${PLATFORM_MAX_RESPONSE_BYTES + 1}`;
  const ok = z.object({ ok: z.literal(true) });
  const discord = new DiscordRest(base, "t");
  expect(await discord.request("GET", `/x${at}`, undefined, ok, "x")).toEqual({ ok: true });
  expect((await caught(discord.request("GET", `/x${past}`, undefined, ok, "x")))?.code).toBe("CHANNEL_RESPONSE_TOO_LARGE");
  expect(await slackCall(base, "t", `auth.test${at}`, {}, ok)).toEqual({ ok: true });
  const slack = await caught(slackCall(base, "t", `auth.test${past}`, {}, ok));
  expect([slack?.code, slack?.message.startsWith("slack: ")]).toEqual(["CHANNEL_RESPONSE_TOO_LARGE", true]);
  expect(await matrixCall(base, "t", "GET", `/sync${at}`, undefined, ok, 30_000)).toEqual({ ok: true });
  const matrix = await caught(matrixCall(base, "t", "GET", `/sync${past}`, undefined, ok, 30_000));
  expect([matrix?.code, matrix?.message.startsWith("matrix: GET /sync: ")]).toEqual(["CHANNEL_RESPONSE_TOO_LARGE", true]);
});

test("an answer that starts and then stalls is abandoned at the call's time cap (retryable, like a dropped connection)", async () => {
  const error = await caught(matrixCall(base, "t", "GET", "/sync?n=100&stall=1", undefined, z.unknown(), 300));
  expect(error!.code).toBe("CHANNEL_TIMEOUT");
  expect(error!.message).toBe("matrix: GET /sync: no complete answer within 300 ms");
  expect(error!.retryable).toBe(true);
  // no answer at all: the same cap
  tg.fail("getMe", { status: 0, description: "", hang: true });
  const silent = await caught(new TelegramApi(tg.url, tg.token).call("getMe", {}, z.unknown(), 300));
  expect([silent?.code, silent?.message]).toEqual(["CHANNEL_TIMEOUT", "telegram: getMe: no complete answer within 300 ms"]);
});

test("a finished call lets go of its time cap and of the caller's signal: nothing of it stays alive until the cap", async () => {
  const { heapStats } = await import("bun:jsc");
  const api = new TelegramApi(tg.url, tg.token);
  const stopping = new AbortController(); // one channel's signal, living as long as the channel
  const alive = () => {
    Bun.gc(true);
    return heapStats().objectTypeCounts.AbortSignal ?? 0;
  };
  const before = alive();
  const calls = 500;
  for (let i = 0; i < calls; i++) await api.call("getMe", {}, z.unknown(), 600_000, stopping.signal);
  // each call's signals would otherwise be held by its 10-minute timer
  expect(alive() - before).toBeLessThan(calls / 10);
  stopping.abort();
});

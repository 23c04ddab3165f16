/** Platform answers nested past MAX_JSON_DEPTH: each platform client refuses them naming the limit, before parsing. */
import { afterAll, expect, test } from "bun:test";
import { z } from "zod";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import { DiscordRest } from "../../src/channels/discord/rest.ts";
import { matrixCall } from "../../src/channels/matrix/api.ts";
import { PlatformError } from "../../src/channels/platform-error.ts";
import { slackCall } from "../../src/channels/slack/api.ts";
import { TelegramApi } from "../../src/channels/telegram/api.ts";

/** Each answer is `{"ok":true,"result":{"d":X}}` nesting `depth` levels in all. */
let depth = MAX_JSON_DEPTH;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => {
    const arrays = "[".repeat(depth - 2) + "]".repeat(depth - 2);
    return new Response(`{"ok":true,"result":{"d":${arrays}}}`, { headers: { "content-type": "application/json" } });
  },
});
afterAll(() => server.stop(true));
const base = `http://127.0.0.1:${server.port}`;

const calls: Array<[string, () => Promise<unknown>]> = [
  ["telegram", () => new TelegramApi(base, "1:t").call("getMe", {}, z.unknown(), 5_000)],
  ["slack", () => slackCall(base, "xoxb", "auth.test", {}, z.unknown(), undefined, 5_000)],
  ["discord", () => new DiscordRest(base, "t", 5_000).request("GET", "/gateway/bot", undefined, z.unknown(), "gateway")],
  ["matrix", () => matrixCall(base, "t", "GET", "/_matrix/client/v3/account/whoami", undefined, z.unknown(), 5_000)],
];

test(`an answer at MAX_JSON_DEPTH = ${MAX_JSON_DEPTH} is read; one level more and 100,000 levels are platform errors naming the limit`, async () => {
  for (const [platform, call] of calls) {
    depth = MAX_JSON_DEPTH;
    expect(await call().then(() => platform)).toBe(platform);
    for (const past of [MAX_JSON_DEPTH + 1, 100_000]) {
      depth = past;
      const error = await call().then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(PlatformError);
      expect({ platform, message: (error as Error).message }).toEqual({
        platform,
        message: expect.stringContaining(`JSON nesting deeper than ${MAX_JSON_DEPTH} levels`),
      });
    }
  }
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { openSqliteDatabase, SqlitePairingStore as PairingStore } from "../../src/storage/index.ts";
import { TELEGRAM_MAX_MESSAGE_CHARS } from "../../src/channels/limits.ts";
import { BOT, startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { waitFor } from "../helpers/wait.ts";

let tg: FakeTelegram;
let h: ChannelHarness;
const ENV = { TG_TOKEN: "123456:TEST-token" };

function table(extra = 'dm_policy = "open"'): string {
  return `[channels.telegram]\nenabled = true\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\n${extra}\n`;
}

beforeEach(() => {
  tg = startFakeTelegram(ENV.TG_TOKEN);
});
afterEach(async () => {
  await h.close();
  await tg.stop();
});

describe("telegram channel", () => {
  test("a DM is answered through the agent turn, with typing shown and the reply threaded to the message", async () => {
    h = channelHarness(table());
    await h.start("telegram", ENV);
    tg.message({ chatId: 42, text: "hello there", messageId: 7 });
    const [reply] = await tg.waitForSent(1);
    expect(reply!.visible).toBe("echo: hello there");
    expect(reply!.chat_id).toBe("42");
    expect(reply!.reply_to).toBe(7);
    expect(reply!.parse_mode).toBe("MarkdownV2");
    expect(tg.actions.some((a) => a.chat_id === "42" && a.action === "typing")).toBe(true);
    // the session lives in the workspace, keyed by (channel, chat)
    const rows = openSqliteDatabase(`${h.dir}/data/prx.db`).query("SELECT id FROM sessions").all() as Array<{ id: string }>;
    expect(rows.map((r) => r.id)).toContain("telegram:42");
  });

  test("the same message delivered twice is answered once", async () => {
    h = channelHarness(table());
    const running = await h.start("telegram", ENV);
    tg.message({ chatId: 5, text: "once", messageId: 77 });
    tg.message({ chatId: 5, text: "once", messageId: 77 });
    tg.message({ chatId: 5, text: "after", messageId: 78 });
    await tg.waitForSent(2);
    await running.runner.idle();
    expect(tg.sent.map((s) => s.visible)).toEqual(["echo: once", "echo: after"]);
    expect(running.runner.stats.duplicates).toBe(1);
  });

  test("the offset is persisted: a restarted channel does not process confirmed updates again and continues the session", async () => {
    h = channelHarness(table());
    const first = await h.start("telegram", ENV);
    const id = tg.message({ chatId: 9, text: "remember me" });
    await tg.waitForSent(1);
    await first.stop();
    h.running.length = 0;
    await h.start("telegram", ENV);
    tg.message({ chatId: 9, text: "second" });
    await tg.waitForSent(2);
    const offsets = tg.calls.filter((c) => c.method === "getUpdates").map((c) => Number(c.body.offset));
    expect(offsets.at(-1)!).toBeGreaterThan(id);
    expect(tg.sent.map((s) => s.visible)).toEqual(["echo: remember me", "echo: second"]);
    // the second turn saw the first one's history
    const history = h.provider.chatRequests().at(-1)!.body.messages.map((m: { content: string }) => m.content);
    expect(history).toContain("remember me");
  });

  test("429 retry_after, 409 Conflict, 5xx and a dropped connection are recovered with backoff", async () => {
    h = channelHarness(table());
    tg.fail("getUpdates", { status: 409, description: "Conflict: terminated by other getUpdates request" }, { status: 502, description: "Bad Gateway" }, { status: 0, description: "", drop: true });
    tg.fail("sendMessage", { status: 429, description: "Too Many Requests: retry after 1", retry_after: 1 });
    await h.start("telegram", ENV);
    tg.message({ chatId: 3, text: "still there?" });
    const [reply] = await tg.waitForSent(1, 20_000);
    expect(reply!.visible).toBe("echo: still there?");
    expect(tg.calls.filter((c) => c.method === "sendMessage")).toHaveLength(2);
  }, 30_000);

  test("text Telegram cannot parse as MarkdownV2 is sent again as plain text", async () => {
    h = channelHarness(table());
    tg.fail("sendMessage", { status: 400, description: "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 3" });
    await h.start("telegram", ENV);
    tg.message({ chatId: 3, text: "a_b *c* [d](e) 1.5!" });
    const [reply] = await tg.waitForSent(1);
    expect(reply!.parse_mode).toBeUndefined();
    expect(reply!.text).toBe("echo: a_b *c* [d](e) 1.5!");
  });

  test("MarkdownV2 escaping keeps special characters and code as written", async () => {
    h = channelHarness(table());
    await h.start("telegram", ENV);
    const text = "x_y *z* (1.5) [a] ~b~ #c +d -e =f |g| {h} !i\n```ts\nconst a = `b`;\n```\nand `inline_code`";
    tg.message({ chatId: 3, text });
    const [reply] = await tg.waitForSent(1);
    expect(reply!.parse_mode).toBe("MarkdownV2");
    expect(reply!.visible).toBe(`echo: ${text}`);
  });

  test("unknown update types and malformed updates are skipped; the next message is answered", async () => {
    h = channelHarness(table());
    const running = await h.start("telegram", ENV);
    tg.update({ edited_message: { message_id: 1, chat: { id: 1, type: "private" }, date: 0, text: "x" } });
    tg.update({ message: { message_id: "not a number", chat: null } });
    tg.update({ message: { message_id: 2, chat: { id: 1, type: "private" }, date: 0, sticker: {} } });
    tg.message({ chatId: 1, text: "after the junk" });
    const [reply] = await tg.waitForSent(1);
    expect(reply!.visible).toBe("echo: after the junk");
    await waitFor(() => tg.pending() === 0 || running.runner.inFlight === 0, "confirmed updates");
    expect(h.provider.chatRequests()).toHaveLength(1);
  });

  test("messages from bots are ignored (no bot-to-bot loops)", async () => {
    h = channelHarness(table());
    const running = await h.start("telegram", ENV);
    tg.message({ chatId: 8, text: "I am a bot", isBot: true });
    tg.message({ chatId: 8, text: "I am a person" });
    await tg.waitForSent(1);
    await running.runner.idle();
    expect(tg.sent.map((s) => s.visible)).toEqual(["echo: I am a person"]);
    expect(running.runner.stats.ignored).toBe(1);
  });

  test("in a group the bot answers only when @-mentioned or replied to", async () => {
    h = channelHarness(table());
    const running = await h.start("telegram", ENV);
    tg.message({ chatId: -100, fromId: 1, chatType: "supergroup", text: "chatting among ourselves" });
    const mention = `@${BOT.username} what time is it`;
    tg.message({ chatId: -100, fromId: 1, chatType: "supergroup", text: mention, entities: [{ type: "mention", offset: 0, length: BOT.username.length + 1 }] });
    tg.message({ chatId: -100, fromId: 1, chatType: "supergroup", text: "and you?", replyToBot: true });
    await tg.waitForSent(2);
    await running.runner.idle();
    expect(tg.sent.map((s) => s.visible)).toEqual([`echo: ${mention}`, "echo: and you?"]);
  });

  test("a 5,000-character reply is split at the 4,096 limit on a paragraph boundary", async () => {
    h = channelHarness(table());
    const paragraphs = Array.from({ length: 10 }, (_, i) => `Paragraph ${i}. ` + "word ".repeat(100).trim() + ".");
    const long = paragraphs.join("\n\n");
    expect(long.length).toBeGreaterThan(5000);
    h.provider.enqueue({ type: "text", text: long });
    await h.start("telegram", ENV);
    tg.message({ chatId: 11, text: "write a lot" });
    const sent = await tg.waitForSent(2);
    for (const part of sent) expect(part.visible.length).toBeLessThanOrEqual(TELEGRAM_MAX_MESSAGE_CHARS);
    expect(sent[0]!.visible.endsWith(".")).toBe(true);
    expect(sent.map((s) => s.visible).join("\n\n")).toBe(long);
  });

  test("pairing: an unknown sender gets a code and nothing runs; once approved, the sender is answered", async () => {
    h = channelHarness(table('dm_policy = "pairing"'));
    await h.start("telegram", ENV);
    tg.message({ chatId: 21, text: "hi, who are you?" });
    const [notice] = await tg.waitForSent(1);
    const code = /Pairing code: ([A-Z0-9]{6})/.exec(notice!.visible)?.[1];
    expect(code).toBeDefined();
    expect(h.provider.chatRequests()).toHaveLength(0);
    new PairingStore(openSqliteDatabase(`${h.dir}/data/prx.db`)).approve(code!);
    tg.message({ chatId: 21, text: "now?" });
    const sent = await tg.waitForSent(2);
    expect(sent[1]!.visible).toBe("echo: now?");
  });

  test("webhook mode: the secret-token header is checked (401, nothing runs), a good update is answered once", async () => {
    h = channelHarness(table('mode = "webhook"\nsecret_env = "TG_SECRET"\ndm_policy = "open"'));
    const running = await h.start("telegram", { ...ENV, TG_SECRET: "hook-secret-token" });
    const update = JSON.stringify({ update_id: 500, message: { message_id: 9, from: { id: 77, is_bot: false, first_name: "Wes" }, chat: { id: 77, type: "private" }, date: 0, text: "via webhook" } });
    const forged = await running.channel.handleHttp!({ method: "POST", headers: { "x-telegram-bot-api-secret-token": "guess" }, body: update });
    expect(forged.status).toBe(401);
    const ok = await running.channel.handleHttp!({ method: "POST", headers: { "x-telegram-bot-api-secret-token": "hook-secret-token" }, body: update });
    expect(ok.status).toBe(200);
    await running.channel.handleHttp!({ method: "POST", headers: { "x-telegram-bot-api-secret-token": "hook-secret-token" }, body: update });
    const [reply] = await tg.waitForSent(1);
    await running.runner.idle();
    expect(reply!.visible).toBe("echo: via webhook");
    expect(tg.sent).toHaveLength(1);
    expect(tg.calls.some((c) => c.method === "getUpdates")).toBe(false);
  });
});

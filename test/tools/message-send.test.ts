/**
 * message_send: named targets only (an unknown name is refused listing the configured ones), a channel target sent
 * through the channel's own adapter to a fake Telegram on 127.0.0.1, a session target added to that session.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lazyChannelDeliverer } from "../../src/channels/deliver-lazy.ts";
import { ChannelConfigSchema, ToolsSchema } from "../../src/config/schema.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { NoneMemory } from "../../src/memory/index.ts";
import { createBuiltinTools, MESSAGE_SEND_MAX_CHARS, ToolRegistry } from "../../src/tools/index.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";

let tg: FakeTelegram;
beforeAll(() => void (tg = startFakeTelegram()));
afterAll(() => tg.stop());
const storage = openSqliteStorage(":memory:");
afterAll(() => storage.close());

function registry(targets: Record<string, unknown>, channels: Record<string, unknown> = {}): ToolRegistry {
  const config = ToolsSchema.parse({ message_send: { targets } });
  const channelConfigs = Object.fromEntries(Object.entries(channels).map(([name, c]) => [name, ChannelConfigSchema.parse(c)]));
  return new ToolRegistry({
    builtins: createBuiltinTools({
      config,
      workspace: "/nonexistent",
      memory: () => new NoneMemory(),
      sessions: () => storage.sessions,
      deliver: lazyChannelDeliverer(channelConfigs, { TG_TOKEN: "123456:TEST-token" }),
    }),
  });
}

const send = (r: ToolRegistry, args: Record<string, unknown>) =>
  r.call("message_send", JSON.stringify(args), { sessionId: "sender", workspace: "/nonexistent", signal: new AbortController().signal });

describe("message_send", () => {
  test("a channel target reaches the configured chat through the channel's adapter", async () => {
    const r = registry({ me: { channel: "telegram", chat: "4242" } }, { telegram: { token_env: "TG_TOKEN", api_base_url: tg.url } });
    const result = await send(r, { target: "me", text: "the build is done" });
    expect(result).toEqual({ success: true, output: "sent to me (telegram)", error: null });
    expect(tg.sent.map((m) => [m.chat_id, m.visible])).toContainEqual(["4242", "the build is done"]);
  });

  test("an unknown target is refused naming the configured ones; nothing is sent", async () => {
    const before = tg.sent.length;
    const r = registry({ me: { channel: "telegram", chat: "4242" }, desk: { session: "desk" } });
    const result = await send(r, { target: "boss", text: "hi" });
    expect(result.success).toBe(false);
    expect(result.error).toBe('unknown target "boss"; configured targets: me, desk');
    expect(tg.sent.length).toBe(before);
  });

  test("a target naming a channel that is not configured says which channels are", async () => {
    const r = registry({ me: { channel: "telegram", chat: "1" } }, { work: { kind: "slack", token_env: "X" } });
    const result = await send(r, { target: "me", text: "hi" });
    expect(result.error).toContain('no channel "telegram" in config.toml');
  });

  test("a webhook channel without callback_url cannot be sent to, and says how to make it possible", async () => {
    const r = registry({ hook: { channel: "hook", chat: "c" } }, { hook: { kind: "webhook", secret_env: "HOOK_SECRET" } });
    const result = await send(r, { target: "hook", text: "hi" });
    expect(result.error).toContain("channel hook is a webhook without callback_url");
  });

  test("a text longer than the platform's limit is sent in parts", async () => {
    const r = registry({ me: { channel: "telegram", chat: "5151" } }, { telegram: { token_env: "TG_TOKEN", api_base_url: tg.url } });
    const text = `${"word ".repeat(1000)}\n\n${"more ".repeat(200)}`.trim();
    const result = await send(r, { target: "me", text });
    expect(result.output).toBe("sent to me (telegram, 2 parts)");
    expect(tg.sent.filter((m) => m.chat_id === "5151").length).toBe(2);
  });

  test("a session target adds the text to that session as the assistant's", async () => {
    const r = registry({ desk: { session: "desk-inbox" } });
    expect((await send(r, { target: "desk", text: "reminder: call Bob" })).output).toBe("sent to desk (session desk-inbox)");
    const messages = storage.sessions.messages("desk-inbox");
    expect(messages.map((m) => [m.role, m.content])).toEqual([["assistant", "reminder: call Bob"]]);
  });

  test(`text of MESSAGE_SEND_MAX_CHARS (${MESSAGE_SEND_MAX_CHARS}) passes, one more fails at the schema`, async () => {
    const r = registry({ desk: { session: "desk-long" } });
    expect((await send(r, { target: "desk", text: "x".repeat(MESSAGE_SEND_MAX_CHARS) })).success).toBe(true);
    const past = await send(r, { target: "desk", text: "x".repeat(MESSAGE_SEND_MAX_CHARS + 1) });
    expect(past.success).toBe(false);
    expect(past.error).toContain("invalid arguments for message_send: text:");
    expect(storage.sessions.messages("desk-long").length).toBe(1);
  });

  test("without targets the tool is not offered, and a call says how to add one", async () => {
    const r = registry({});
    expect(r.names()).not.toContain("message_send");
    expect(r.unavailable().find((t) => t.name === "message_send")?.reason).toContain("[tools.message_send.targets.me]");
  });

  test("config: target names and targets are checked where config.toml is read", () => {
    expect(ToolsSchema.safeParse({ message_send: { targets: { "bad name": { session: "x" } } } }).success).toBe(false);
    expect(ToolsSchema.safeParse({ message_send: { targets: { me: { channel: "telegram" } } } }).success).toBe(false);
    expect(ToolsSchema.safeParse({ message_send: { targets: { me: { session: "a b" } } } }).success).toBe(false);
    expect(ToolsSchema.safeParse({ message_send: { targets: { ["n".repeat(64)]: { session: "x" } } } }).success).toBe(true);
    expect(ToolsSchema.safeParse({ message_send: { targets: { ["n".repeat(65)]: { session: "x" } } } }).success).toBe(false);
  });
});

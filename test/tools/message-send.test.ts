/**
 * message_send: named targets only (an unknown name is refused listing the configured ones), a channel target sent
 * through the channel's own adapter to a fake Telegram on 127.0.0.1 (with the workspace files the text links, as a
 * reply's), a session target added to that session.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lazyChannelDeliverer } from "../../src/channels/deliver-lazy.ts";
import { ChannelConfigSchema, ToolsSchema } from "../../src/config/schema.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { NoneMemory } from "../../src/memory/index.ts";
import { createBuiltinTools, MESSAGE_SEND_MAX_CHARS, ToolRegistry } from "../../src/tools/index.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { PNG } from "../helpers/tiny-png.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

let tg: FakeTelegram;
beforeAll(() => void (tg = startFakeTelegram()));
afterAll(() => tg.stop());
const storage = openSqliteStorage(":memory:");
afterAll(() => storage.close());

function registry(targets: Record<string, unknown>, channels: Record<string, unknown> = {}, workspace = "/nonexistent"): ToolRegistry {
  const config = ToolsSchema.parse({ message_send: { targets } });
  const channelConfigs = Object.fromEntries(Object.entries(channels).map(([name, c]) => [name, ChannelConfigSchema.parse(c)]));
  return new ToolRegistry({
    builtins: createBuiltinTools({
      config,
      workspace,
      memory: () => new NoneMemory(),
      sessions: () => storage.sessions,
      deliver: lazyChannelDeliverer(channelConfigs, { TG_TOKEN: "123456:TEST-token", HOOK_SECRET: "hook-secret" }),
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

  test("workspace files the text links go after it as a reply's: the image as a photo, the file as a document", async () => {
    const ws = tempWorkspace();
    try {
      writeFileSync(join(ws.dir, "chart.png"), PNG);
      writeFileSync(join(ws.dir, "report.csv"), "a,b\n1,2\n");
      const r = registry({ me: { channel: "telegram", chat: "6161" } }, { telegram: { token_env: "TG_TOKEN", api_base_url: tg.url } }, ws.dir);
      const text = "Weekly: ![chart](chart.png) and [data](report.csv)";
      expect(await send(r, { target: "me", text })).toEqual({ success: true, output: "sent to me (telegram, 2 files)", error: null });
      expect(tg.sent.filter((m) => m.chat_id === "6161").map((m) => m.visible)).toEqual([text]);
      const uploads = tg.uploads.filter((u) => u.chat_id === "6161");
      expect(uploads.map((u) => [u.method, u.name, u.mime])).toEqual([
        ["sendPhoto", "chart.png", "image/png"],
        ["sendDocument", "report.csv", "text/csv"],
      ]);
      expect(uploads[0]!.bytes).toEqual(PNG);
      expect(uploads[0]!.message_id).toBeGreaterThan(tg.sent.find((m) => m.chat_id === "6161")!.message_id);
    } finally {
      ws.cleanup();
    }
  });

  test("secrets.env, prx's own files and paths outside the workspace are not sent; the result says which were refused", async () => {
    const ws = tempWorkspace("");
    try {
      writeFileSync(join(ws.dir, "secrets.env"), "KEY=never\n", { mode: 0o600 });
      writeFileSync(join(ws.dir, "..", `outside-${ws.dir.split("/").pop()}.txt`), "outside");
      const r = registry({ me: { channel: "telegram", chat: "7171" } }, { telegram: { token_env: "TG_TOKEN", api_base_url: tg.url } }, ws.dir);
      const text = `[keys](secrets.env) [cfg](config.toml) [out](../outside-${ws.dir.split("/").pop()}.txt) [abs](/etc/passwd)`;
      const result = await send(r, { target: "me", text });
      expect(result).toEqual({ success: true, output: "sent to me (telegram)\n(config.toml is prx's own and is not sent)", error: null });
      expect(tg.sent.filter((m) => m.chat_id === "7171").map((m) => m.visible)).toEqual([text]);
      expect(tg.uploads.filter((u) => u.chat_id === "7171")).toEqual([]);
    } finally {
      rmSync(join(ws.dir, "..", `outside-${ws.dir.split("/").pop()}.txt`), { force: true });
      ws.cleanup();
    }
  });

  test("a platform that takes no files gets the text with its links and nothing more", async () => {
    const bodies: unknown[] = [];
    const hook = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (request) => (bodies.push(await request.json()), Response.json({ ok: true })) });
    const ws = tempWorkspace();
    try {
      writeFileSync(join(ws.dir, "chart.png"), PNG);
      const r = registry({ ops: { channel: "hook", chat: "ops" } }, { hook: { kind: "webhook", secret_env: "HOOK_SECRET", callback_url: `http://127.0.0.1:${hook.port}/` } }, ws.dir);
      expect((await send(r, { target: "ops", text: "see ![chart](chart.png)" })).output).toBe("sent to ops (hook)");
      expect(bodies).toEqual([{ reply_to: null, chat_id: "ops", thread_id: null, text: "see ![chart](chart.png)" }]);
    } finally {
      await hook.stop(true);
      ws.cleanup();
    }
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

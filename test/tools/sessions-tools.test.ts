/**
 * sessions_list and sessions_history over a real SQLite store: bounded pages and messages (at the limit passes, one
 * past fails), tool calls by name only and memory tools' results withheld (they may hold private memories).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ToolsSchema } from "../../src/config/schema.ts";
import { NoneMemory } from "../../src/memory/index.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import {
  createBuiltinTools,
  SESSIONS_HISTORY_DEFAULT_LIMIT,
  SESSIONS_HISTORY_MAX_CHARS,
  SESSIONS_HISTORY_MAX_MESSAGE_CHARS,
  SESSIONS_HISTORY_MAX_MESSAGES,
  SESSIONS_LIST_DEFAULT_LIMIT,
  SESSIONS_LIST_MAX_LIMIT,
  ToolRegistry,
} from "../../src/tools/index.ts";
import { historyView, NOT_OWNER_REFUSAL, WITHHELD_MEMORY_RESULT } from "../../src/tools/builtins/sessions.ts";
import type { StoredMessage } from "../../src/storage/types.ts";

const storage = openSqliteStorage(":memory:");
afterAll(() => storage.close());
const registry = new ToolRegistry({
  builtins: createBuiltinTools({
    config: ToolsSchema.parse({}),
    workspace: "/nonexistent",
    memory: () => new NoneMemory(),
    sessions: () => storage.sessions,
  }),
});
const call = async (name: string, args: Record<string, unknown>) =>
  registry.call(name, JSON.stringify(args), { sessionId: "s-current", workspace: "/nonexistent", signal: new AbortController().signal });
const json = async (name: string, args: Record<string, unknown>) => {
  const result = await call(name, args);
  expect(result.error).toBeNull();
  return JSON.parse(result.output);
};

for (let i = 0; i < SESSIONS_LIST_MAX_LIMIT + 2; i++) storage.sessions.append(`s-${i}`, [{ role: "user", content: `hello ${i}` }], { channel: "cli" });
storage.sessions.append("s-current", [{ role: "user", content: "now" }], { channel: "cli" });
storage.sessions.append(
  "s-other",
  [
    { role: "user", content: "remember my PIN is 4711, privately" },
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id: "c1", name: "memory_store", arguments: '{"key":"pin","content":"4711","private":true}' }],
    },
    { role: "tool", content: 'stored private memory "pin"', tool_call_id: "c1", name: "memory_store" },
    { role: "assistant", content: "", tool_calls: [{ id: "c2", name: "memory_recall", arguments: '{"query":"pin"}' }] },
    { role: "tool", content: "1. pin [general, private] 4711", tool_call_id: "c2", name: "memory_recall" },
    { role: "tool", content: "not a memory tool", tool_call_id: "c3", name: "web_fetch" },
    { role: "assistant", content: "Noted." },
  ], { channel: "telegram" });

describe("sessions_list", () => {
  test(`limit ${SESSIONS_LIST_MAX_LIMIT} passes, one more fails at the schema`, async () => {
    expect((await json("sessions_list", { limit: SESSIONS_LIST_MAX_LIMIT })).sessions.length).toBe(SESSIONS_LIST_MAX_LIMIT);
    const past = await call("sessions_list", { limit: SESSIONS_LIST_MAX_LIMIT + 1 });
    expect(past.success).toBe(false);
    expect(past.error).toContain("invalid arguments for sessions_list: limit:");
  });

  test("rows carry id, title, channel, update time and message count; the calling session is marked", async () => {
    const { sessions } = await json("sessions_list", { query: "s-other" });
    expect(sessions).toEqual([{ id: "s-other", title: expect.any(String), channel: "telegram", updated_at: expect.any(String), messages: 7 }]);
    const current = (await json("sessions_list", { query: "s-current" })).sessions[0];
    expect(current.current).toBe(true);
  });
});

describe("sessions_history", () => {
  test("user and assistant messages by default; tool calls by name, never their arguments", async () => {
    const answer = await json("sessions_history", { session_id: "s-other" });
    expect(answer.channel).toBe("telegram");
    expect(answer.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "assistant", "assistant"]);
    expect(answer.messages[1].tool_calls).toEqual(["memory_store"]);
    expect(JSON.stringify(answer)).not.toContain('"private":true');
  });

  test("with include_tools, memory tools' results are withheld and others shown", async () => {
    const answer = await json("sessions_history", { session_id: "s-other", include_tools: true });
    const tools = answer.messages.filter((m: { role: string }) => m.role === "tool");
    expect(tools.map((m: { tool: string; content: string }) => [m.tool, m.content])).toEqual([
      ["memory_store", WITHHELD_MEMORY_RESULT],
      ["memory_recall", WITHHELD_MEMORY_RESULT],
      ["web_fetch", "not a memory tool"],
    ]);
    expect(JSON.stringify(answer.messages.slice(1))).not.toContain("4711");
  });

  test(`limit ${SESSIONS_HISTORY_MAX_MESSAGES} passes, one more fails; a limit keeps the newest`, async () => {
    expect((await call("sessions_history", { session_id: "s-other", limit: SESSIONS_HISTORY_MAX_MESSAGES })).success).toBe(true);
    expect((await call("sessions_history", { session_id: "s-other", limit: SESSIONS_HISTORY_MAX_MESSAGES + 1 })).error).toContain("limit:");
    const newest = await json("sessions_history", { session_id: "s-other", limit: 1 });
    expect(newest.messages.map((m: { content: string }) => m.content)).toEqual(["Noted."]);
  });

  test("an unknown session is an error pointing at sessions_list; a malformed id fails at the schema", async () => {
    expect((await call("sessions_history", { session_id: "s-none" })).error).toBe('no session "s-none"; sessions_list gives the ids');
    expect((await call("sessions_history", { session_id: "a b" })).error).toContain("session_id:");
  });
});

describe("the owner's only", () => {
  test("a turn of a sender who is not the owner is refused by both tools; the owner's turn reads", async () => {
    const as = (owner: boolean) => ({ sessionId: "s-current", workspace: "/nonexistent", signal: new AbortController().signal, fromOwner: async () => owner });
    for (const [name, args] of [["sessions_list", {}], ["sessions_history", { session_id: "s-other" }]] as const) {
      const refused = await registry.call(name, JSON.stringify(args), as(false));
      expect(refused).toEqual({ success: false, output: "", error: NOT_OWNER_REFUSAL });
      expect((await registry.call(name, JSON.stringify(args), as(true))).success).toBe(true);
    }
  });
});

describe("sessions_history bounds", () => {
  const message = (seq: number, content: string): StoredMessage => ({ seq, role: "user", content, createdAt: "2026-01-01T00:00:00Z" });

  test(`a message of ${SESSIONS_HISTORY_MAX_MESSAGE_CHARS} characters is whole, one more is cut with a note`, () => {
    const atLimit = historyView([message(1, "a".repeat(SESSIONS_HISTORY_MAX_MESSAGE_CHARS))], false, 10).messages[0]!.content;
    expect(atLimit).toBe("a".repeat(SESSIONS_HISTORY_MAX_MESSAGE_CHARS));
    const past = historyView([message(1, "a".repeat(SESSIONS_HISTORY_MAX_MESSAGE_CHARS + 1))], false, 10).messages[0]!.content;
    expect(past).toBe(`${"a".repeat(SESSIONS_HISTORY_MAX_MESSAGE_CHARS)} [... cut: ${SESSIONS_HISTORY_MAX_MESSAGE_CHARS + 1} characters in all]`);
  });

  test(`content of ${SESSIONS_HISTORY_MAX_CHARS} characters in all is kept whole; one more leaves the oldest message out`, () => {
    const n = SESSIONS_HISTORY_MAX_CHARS / SESSIONS_HISTORY_MAX_MESSAGE_CHARS;
    const full = Array.from({ length: n }, (_, i) => message(i + 1, "b".repeat(SESSIONS_HISTORY_MAX_MESSAGE_CHARS)));
    expect(historyView(full, false, 50)).toMatchObject({ left_out: 0, messages: { length: n } });
    const over = [...full, message(n + 1, "c")];
    const view = historyView(over, false, 50);
    expect(view.left_out).toBe(1);
    expect(view.messages[0]!.seq).toBe(2);
    expect(view.messages.at(-1)!.content).toBe("c");
  });
});

describe("without a limit", () => {
  test(`sessions_list gives SESSIONS_LIST_DEFAULT_LIMIT (${SESSIONS_LIST_DEFAULT_LIMIT}) sessions, the most recent, when more exist`, async () => {
    const listed = (await json("sessions_list", {})).sessions as Array<{ id: string }>;
    expect(listed.length).toBe(SESSIONS_LIST_DEFAULT_LIMIT);
    const all = (await json("sessions_list", { limit: SESSIONS_LIST_MAX_LIMIT })).sessions as Array<{ id: string }>;
    expect(all.length).toBeGreaterThan(SESSIONS_LIST_DEFAULT_LIMIT);
    expect(listed.map((s) => s.id)).toEqual(all.slice(0, SESSIONS_LIST_DEFAULT_LIMIT).map((s) => s.id));
  });

  test(`sessions_history gives SESSIONS_HISTORY_DEFAULT_LIMIT (${SESSIONS_HISTORY_DEFAULT_LIMIT}) messages whole; with one more, the oldest is not shown`, async () => {
    const said = (n: number) => Array.from({ length: n }, (_, i) => ({ role: "user" as const, content: `m${i + 1}` }));
    storage.sessions.append("s-exact", said(SESSIONS_HISTORY_DEFAULT_LIMIT), { channel: "cli" });
    storage.sessions.append("s-one-more", said(SESSIONS_HISTORY_DEFAULT_LIMIT + 1), { channel: "cli" });
    const exact = await json("sessions_history", { session_id: "s-exact" });
    expect(exact.messages.map((m: { content: string }) => m.content)).toEqual(said(SESSIONS_HISTORY_DEFAULT_LIMIT).map((m) => m.content));
    expect(exact.left_out).toBeUndefined();
    const more = await json("sessions_history", { session_id: "s-one-more" });
    expect(more.messages).toHaveLength(SESSIONS_HISTORY_DEFAULT_LIMIT);
    expect(more.messages[0].content).toBe("m2");
    expect(more.messages.at(-1).content).toBe(`m${SESSIONS_HISTORY_DEFAULT_LIMIT + 1}`);
  });
});

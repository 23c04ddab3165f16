import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SESSION_ID_MAX_BYTES, SqliteSessionStore, validateSessionId } from "../../src/agent/sessions.ts";
import { SESSION_QUEUE_MAX, SessionQueue } from "../../src/agent/session-queue.ts";

describe("session store", () => {
  test("append, list, history with tool calls kept together", () => {
    const store = new SqliteSessionStore(new Database(":memory:"));
    store.ensure("s1", "cli");
    store.append("s1", [{ role: "user", content: "remember the milk" }]);
    store.append("s1", [
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "memory_store", arguments: "{}" }] },
      { role: "tool", content: "stored", tool_call_id: "c1", name: "memory_store" },
      { role: "assistant", content: "done" },
    ]);
    const [summary] = store.list();
    expect(summary).toMatchObject({ id: "s1", title: "remember the milk", messageCount: 4, channel: "cli" });
    const history = store.history("s1", 50);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(history[1]!.tool_calls?.[0]?.id).toBe("c1");
    expect(history[2]!.tool_call_id).toBe("c1");
  });

  test("history drops unanswered tool calls and orphaned results at the window edge", () => {
    const store = new SqliteSessionStore(new Database(":memory:"));
    store.ensure("s", "cli");
    store.append("s", [
      { role: "user", content: "a" },
      { role: "assistant", content: "thinking", tool_calls: [{ id: "x", name: "t", arguments: "{}" }] },
      { role: "user", content: "b" },
    ]);
    expect(store.history("s", 50)).toEqual([
      { role: "user", content: "a" },
      { role: "assistant", content: "thinking" },
      { role: "user", content: "b" },
    ]);
    store.append("s", [
      { role: "assistant", content: "", tool_calls: [{ id: "y", name: "t", arguments: "{}" }] },
      { role: "tool", content: "r", tool_call_id: "y", name: "t" },
      { role: "assistant", content: "fin" },
    ]);
    // A window of 2 starts at the tool result: it must not be sent without its call.
    expect(store.history("s", 2)).toEqual([{ role: "assistant", content: "fin" }]);
  });

  test("session id validation at the byte limit", () => {
    expect(validateSessionId("a".repeat(SESSION_ID_MAX_BYTES))).toHaveLength(SESSION_ID_MAX_BYTES);
    expect(() => validateSessionId("a".repeat(SESSION_ID_MAX_BYTES + 1))).toThrow(/invalid session id/);
    expect(() => validateSessionId("bad id")).toThrow(/invalid session id/);
    expect(() => validateSessionId("")).toThrow(/invalid session id/);
  });
});

describe("session queue", () => {
  test("one turn at a time per session, sessions independent", async () => {
    const queue = new SessionQueue();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = queue.run("a", async () => {
      order.push("a1 start");
      await gate;
      order.push("a1 end");
    });
    const second = queue.run("a", async () => void order.push("a2"));
    await queue.run("b", async () => void order.push("b1"));
    expect(order).toEqual(["a1 start", "b1"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["a1 start", "b1", "a1 end", "a2"]);
    expect(queue.active).toBe(0);
  });

  test("a failed turn does not block the next", async () => {
    const queue = new SessionQueue();
    await expect(queue.run("a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await queue.run("a", async () => 42)).toBe(42);
  });

  test("queue depth limit: at the limit accepted, one past refused", async () => {
    const queue = new SessionQueue();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs = Array.from({ length: SESSION_QUEUE_MAX }, () => queue.run("s", () => gate));
    await expect(queue.run("s", async () => 1)).rejects.toThrow(/turns queued/);
    release();
    await Promise.all(runs);
  });
});

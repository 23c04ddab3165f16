/**
 * A turn's history from the SQLite session store: the statement reads the columns the history decodes (the session
 * id, times and usage of each row are not made into strings) by the messages' primary key, and the history holds
 * what was appended.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { SQL, SqliteSessionStore } from "../../src/storage/sqlite/sessions.ts";

test("a turn's history reads only the columns it decodes, by the messages' key, and gives back what was appended", () => {
  const db = new Database(":memory:", { strict: true });
  const sessions = new SqliteSessionStore(db);
  const call = { id: "c1", name: "shell", arguments: "{}" };
  sessions.append("chat:1", [{ role: "user", content: "hi" }], { channel: "chat" });
  sessions.append("chat:1", [
    { role: "assistant", content: "", tool_calls: [call], usage: { input_tokens: 3, output_tokens: 4 } as never },
    { role: "tool", content: "ok", tool_call_id: "c1", name: "shell" },
    { role: "assistant", content: "done", usage: { input_tokens: 5, output_tokens: 6 } as never },
  ]);
  const rows = db.query<Record<string, unknown>, [string, number]>(SQL.history).all("chat:1", 50);
  expect(rows.map((row) => Object.keys(row).sort())).toEqual(rows.map(() => ["content", "media", "name", "role", "tool_call_id", "tool_calls"]));
  const plan = db.query<{ detail: string }, [string, number]>(`EXPLAIN QUERY PLAN ${SQL.history}`).all("chat:1", 50).map((row) => row.detail);
  expect(plan.some((detail) => /SEARCH session_messages USING (INDEX|PRIMARY KEY)/.test(detail))).toBe(true);
  expect(plan.some((detail) => /SCAN session_messages/.test(detail))).toBe(false);
  expect(sessions.history("chat:1", 50)).toEqual([
    { role: "user", content: "hi" },
    { role: "assistant", content: "", tool_calls: [call] },
    { role: "tool", content: "ok", tool_call_id: "c1", name: "shell" },
    { role: "assistant", content: "done" },
  ]);
  expect(sessions.history("chat:1", 1)).toEqual([{ role: "assistant", content: "done" }]);
  db.close();
});

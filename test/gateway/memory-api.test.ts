import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { MEMORY_LIST_MAX } from "../../src/memory/limits.ts";
import { MEMORY_IMPORT_MAX_BYTES, MEMORY_IMPORT_MAX_ENTRIES, MemoryRecordSchema } from "../../src/memory/transfer.ts";
import { harness, json, type Harness } from "./harness.ts";
import { hostDb } from "../helpers/host-db.ts";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());
beforeEach(() => hostDb(h.host).exec("DELETE FROM memories"));

const JSONL = { "content-type": "application/x-ndjson" };
const store = (body: Record<string, unknown>) => h.call("/api/memory", { json: body });
const entryPath = (key: string) => `/api/memory/entries/${encodeURIComponent(key)}`;

describe("memory API", () => {
  test("every memory and export route needs the bearer token", async () => {
    const routes: Array<[string, string]> = [
      ["GET", "/api/memory"],
      ["GET", "/api/memory/search?q=x"],
      ["POST", "/api/memory"],
      ["GET", entryPath("k")],
      ["DELETE", entryPath("k")],
      ["GET", "/api/export/memory"],
      ["POST", "/api/import/memory"],
      ["GET", "/api/export/sessions"],
      ["GET", "/api/sessions/s1"],
      ["DELETE", "/api/sessions/s1"],
    ];
    for (const [method, path] of routes) {
      const response = await h.call(path, { method, auth: false });
      expect([method, path, response.status]).toEqual([method, path, 401]);
    }
  });

  test("store (private too), list, show by an encoded key, search with scores, forget from the index too", async () => {
    const stored = await json(store({ key: "notes/pin code", content: "bank card PIN 1234", category: "finance", private: true }));
    expect(stored.entry).toMatchObject({ key: "notes/pin code", private: true, category: "finance", score: null });
    await store({ key: "bank", content: "main bank is Monzo" });
    const listed = await json(h.call("/api/memory"));
    expect(listed.total).toBe(2);
    expect(listed.entries.map((e: { key: string }) => e.key).sort()).toEqual(["bank", "notes/pin code"]);
    const finance = await json(h.call("/api/memory?category=finance"));
    expect(finance.entries.map((e: { key: string }) => e.key)).toEqual(["notes/pin code"]);
    expect((await json(h.call(entryPath("notes/pin code")))).entry.content).toBe("bank card PIN 1234");
    const search = await json(h.call("/api/memory/search?q=bank%20PIN"));
    expect(search.entries.map((e: { key: string; score: number }) => [e.key, e.score])).toEqual([["notes/pin code", 1]]);
    const forgotten = await h.call(entryPath("notes/pin code"), { method: "DELETE" });
    expect(await forgotten.json()).toEqual({ key: "notes/pin code", forgotten: true });
    expect((await h.call(entryPath("notes/pin code"))).status).toBe(404);
    expect((await h.call(entryPath("notes/pin code"), { method: "DELETE" })).status).toBe(404);
    expect((await json(h.call("/api/memory/search?q=1234"))).entries).toEqual([]);
    hostDb(h.host).exec("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)");
  });

  test("bad requests name the problem", async () => {
    expect((await json(h.call("/api/memory/search"))).error.message).toContain("q is required");
    expect((await h.call("/api/memory?offset=-1")).status).toBe(400);
    const bad = await json(store({ key: "k", content: "x", privat: true }));
    expect(bad.error.code).toBe("BAD_REQUEST");
    expect(bad.error.message).toContain("privat");
  });

  test("a key with NUL is refused with 400 naming the key and the rule, by store and by import", async () => {
    const stored = await store({ key: "a\0b", content: "x" });
    expect(stored.status).toBe(400);
    expect(((await stored.json()) as { error: { message: string } }).error.message).toBe('memory key "a\\u0000b" is refused: a memory key may not contain the NUL character (U+0000)');
    const imported = await h.call("/api/import/memory", { method: "POST", headers: JSONL, body: JSON.stringify({ key: "a\0b", content: "x" }) });
    expect(imported.status).toBe(400);
    expect(((await imported.json()) as { error: { message: string } }).error.message).toContain("a memory key may not contain the NUL character");
    expect((await json(h.call("/api/memory"))).total).toBe(0);
  });

  test(`a page holds at most MEMORY_LIST_MAX (${MEMORY_LIST_MAX}) entries; larger limits are clamped; offset pages on`, async () => {
    const lines = Array.from({ length: MEMORY_LIST_MAX + 1 }, (_, i) => JSON.stringify({ key: `k${i}`, content: `c ${i}` }));
    expect((await h.call("/api/import/memory", { method: "POST", headers: JSONL, body: lines.join("\n") })).status).toBe(200);
    const atMax = await json(h.call(`/api/memory?limit=${MEMORY_LIST_MAX}`));
    expect([atMax.entries.length, atMax.total, atMax.limit]).toEqual([MEMORY_LIST_MAX, MEMORY_LIST_MAX + 1, MEMORY_LIST_MAX]);
    const past = await json(h.call(`/api/memory?limit=${MEMORY_LIST_MAX + 1}`));
    expect([past.entries.length, past.limit]).toEqual([MEMORY_LIST_MAX, MEMORY_LIST_MAX]);
    const rest = await json(h.call(`/api/memory?offset=${MEMORY_LIST_MAX}`));
    expect(rest.entries).toHaveLength(1);
  });
});

describe("memory export and import", () => {
  test("export is JSON Lines that import restores exactly (private flag, session, timestamps)", async () => {
    await store({ key: "pin", content: "PIN 1234", private: true });
    await store({ key: "mood", content: "cheerful", session_id: "s1" });
    const exported = await h.call("/api/export/memory");
    expect(exported.headers.get("content-type")).toStartWith("application/x-ndjson");
    const text = await exported.text();
    const records = text.trim().split("\n").map((line) => MemoryRecordSchema.parse(JSON.parse(line)));
    expect(records.map((r) => [r.key, r.private, r.session_id])).toEqual([
      ["pin", true, null],
      ["mood", false, "s1"],
    ]);
    hostDb(h.host).exec("DELETE FROM memories");
    const imported = await json(h.call("/api/import/memory", { method: "POST", headers: JSONL, body: text }));
    expect(imported).toEqual({ entries: 2, created: 2, replaced: 0 });
    expect(await (await h.call("/api/export/memory")).text()).toBe(text);
    const again = await json(h.call("/api/import/memory", { method: "POST", headers: JSONL, body: text }));
    expect(again).toEqual({ entries: 2, created: 0, replaced: 2 });
  });

  test("a bad line refuses the whole import and names every bad line", async () => {
    const body = [
      JSON.stringify({ key: "ok", content: "fine" }),
      "{not json",
      JSON.stringify({ key: "", content: "x" }),
      JSON.stringify({ key: "ok", content: "again" }),
      JSON.stringify({ key: "x", content: "y", colour: "red" }),
    ].join("\n");
    const response = await h.call("/api/import/memory", { method: "POST", headers: JSONL, body });
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.message).toStartWith("memory import refused, nothing was imported: line 2: not JSON");
    expect(error.message).toContain("line 3: key:");
    expect(error.message).toContain('line 4: key "ok" repeats line 1');
    expect(error.message).toContain("line 5:");
    expect(error.hint).toContain("prx memory export");
    expect((await json(h.call("/api/memory"))).total).toBe(0);
    const wrongType = await h.call("/api/import/memory", { method: "POST", json: { key: "k" } });
    expect(wrongType.status).toBe(415);
  });

  test(`an import of MEMORY_IMPORT_MAX_ENTRIES (${MEMORY_IMPORT_MAX_ENTRIES}) entries is stored; one more is refused whole`, async () => {
    const lines = Array.from({ length: MEMORY_IMPORT_MAX_ENTRIES }, (_, i) => `{"key":"k${i}","content":"${i}"}`);
    const atMax = await h.call("/api/import/memory", { method: "POST", headers: JSONL, body: lines.join("\n") });
    expect((await json(atMax)).created).toBe(MEMORY_IMPORT_MAX_ENTRIES);
    hostDb(h.host).exec("DELETE FROM memories");
    lines.push('{"key":"one-more","content":"x"}');
    const past = await h.call("/api/import/memory", { method: "POST", headers: JSONL, body: lines.join("\n") });
    expect(past.status).toBe(413);
    expect((await json(past)).error.message).toContain(`${MEMORY_IMPORT_MAX_ENTRIES} entries`);
    expect((await json(h.call("/api/memory"))).total).toBe(0);
  });
});

describe("import size", () => {
  test("an import body is capped by gateway.max_body_bytes like every body", async () => {
    const body = "x".repeat(h.gw.config.max_body_bytes + 1);
    const response = await h.call("/api/import/memory", { method: "POST", headers: JSONL, body });
    expect(response.status).toBe(413);
    expect((await json(response)).error.message).toContain("exceeds gateway.max_body_bytes");
  });

  test("with a larger gateway.max_body_bytes, MEMORY_IMPORT_MAX_BYTES caps it, declared or streamed", async () => {
    const big = await harness({ gateway: { max_body_bytes: 64 * 1024 * 1024 } });
    try {
      const body = "x".repeat(MEMORY_IMPORT_MAX_BYTES + 1);
      const headers = { ...JSONL, "content-length": String(body.length) };
      const declared = await big.call("/api/import/memory", { method: "POST", headers, body });
      expect(declared.status).toBe(413);
      expect((await json(declared)).error.message).toBe(
        `memory import of ${MEMORY_IMPORT_MAX_BYTES + 1} bytes is over the limit of ${MEMORY_IMPORT_MAX_BYTES} bytes`,
      );
      const streamed = await big.call("/api/import/memory", { method: "POST", headers: JSONL, body });
      expect((await json(streamed)).error.message).toBe(
        `memory import of more than ${MEMORY_IMPORT_MAX_BYTES} bytes is over the limit of ${MEMORY_IMPORT_MAX_BYTES} bytes`,
      );
      // at the limit the body is read and parsed (here: one line that is not JSON)
      const atLimit = await big.call("/api/import/memory", { method: "POST", headers: JSONL, body: body.slice(1) });
      expect((await json(atLimit)).error.message).toStartWith("memory import refused, nothing was imported: line 1: not JSON");
    } finally {
      await big.close();
    }
  });
});

describe("sessions API: show, delete, export", () => {
  test("show a session; deleting it removes its messages and session-scoped memories; export is JSON Lines", async () => {
    await h.host.runTurn({ sessionId: "erase-me", channel: "test", text: "hello there" });
    await h.host.memory.store("mood", "cheerful", "core", "erase-me");
    await h.host.memory.store("tz", "Lisbon", "core");
    const shown = await json(h.call("/api/sessions/erase-me"));
    expect(shown.session).toMatchObject({ id: "erase-me", message_count: 2 });
    expect(shown.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    const exported = (await (await h.call("/api/export/sessions?id=erase-me")).text()).trim().split("\n");
    expect(exported).toHaveLength(1);
    const line = JSON.parse(exported[0]!);
    expect([line.id, line.messages.length, line.messages[0].content]).toEqual(["erase-me", 2, "hello there"]);
    expect(await json(h.call("/api/sessions/erase-me", { method: "DELETE" }))).toEqual({
      session_id: "erase-me",
      messages: 2,
      media: 0,
      memories: 1,
    });
    const left = hostDb(h.host).query("SELECT count(*) AS n FROM session_messages WHERE session_id = 'erase-me'").get() as { n: number };
    expect(left.n).toBe(0);
    expect((await h.call("/api/sessions/erase-me")).status).toBe(404);
    expect((await h.call("/api/sessions/erase-me", { method: "DELETE" })).status).toBe(404);
    expect((await h.call("/api/export/sessions?id=erase-me")).status).toBe(404);
    expect(await h.host.memory.get("mood")).toBeNull();
    expect(await h.host.memory.get("tz")).not.toBeNull();
  });
});

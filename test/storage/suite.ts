/**
 * One suite every storage backend passes: the same calls, the same answers, on SQLite and on PostgreSQL.
 * Each backend's test file calls storeSuite() with a way to open a fresh, empty Storage.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import { IDEMPOTENCY_KEY_MAX_BYTES, KV_KEY_MAX_BYTES, type BackendStorage as Storage } from "../../src/storage/index.ts";
import {
  DEFAULT_RESPONSES_TTL_MS,
  RESPONSES_PURGE_BATCH,
  RESPONSES_PURGE_INTERVAL_MS,
  SESSION_SEARCH_MAX_CHARS,
  SESSION_TITLE_MAX_CHARS,
} from "../../src/storage/limits.ts";
import { usageDeltas } from "../../src/storage/usage-rules.ts";
import { USAGE_PENDING_MAX_ROWS } from "../../src/agent/usage-recorder.ts";

export interface SuiteBackend {
  name: string;
  /** False when the backend's server is not there: the suite is skipped (the rule is in test/helpers/servers.ts). */
  available: boolean;
  open(clock: () => number): Promise<Storage>;
  cleanup(): Promise<void>;
  /** Run SQL as another writer of the database would (no store in between). */
  exec(s: Storage, statement: string): Promise<void>;
  /** The backend's query plan of the statement a session search for `text` runs (after ANALYZE). */
  searchPlan(s: Storage, text: string): Promise<string>;
  /** The index a session search of three characters or more reads: named in searchPlan's answer. */
  searchIndex: string;
}

async function rejects(body: () => unknown, code: string): Promise<void> {
  let caught: unknown = null;
  try {
    await body();
  } catch (error) {
    caught = error;
  }
  expect(isPrxError(caught, code as never)).toBe(true);
}

export function storeSuite(backend: SuiteBackend): void {
  let store: Storage | null = null;
  let now = 1_700_000_000_000;
  const clock = () => now;

  beforeAll(async () => {
    if (backend.available) store = await backend.open(clock);
  });
  afterAll(async () => {
    await store?.close();
    if (backend.available) await backend.cleanup();
  });
  const it = (name: string, body: (s: Storage) => Promise<void>) => test.skipIf(!backend.available)(name, () => body(store!));

  describe(`${backend.name}: sessions`, () => {
    it("a session is created once, keeps its channel, and is titled by its first user message", async (s) => {
      const a = await s.sessions.ensure("s-1", "cli");
      const again = await s.sessions.ensure("s-1", "gateway");
      expect(a.channel).toBe("cli");
      expect(again.channel).toBe("cli");
      await s.sessions.append("s-1", [
        { role: "user", content: "  What   is\nthe weather like today in Lisbon, and tomorrow, and the day after?  " },
        { role: "assistant", content: "sunny" },
      ]);
      const summary = (await s.sessions.get("s-1"))!;
      expect(summary.title).toBe("What is the weather like today in Lisbon, and tomorrow, and the day after?".slice(0, 60));
      expect(summary.messageCount).toBe(2);
      expect(await s.sessions.get("nope")).toBeNull();
      await rejects(() => s.sessions.ensure("bad id!", "cli"), "BAD_REQUEST");
    });

    it("an append with a channel creates a missing session with its messages, and leaves an existing one's channel", async (s) => {
      await s.sessions.append("first-write", [{ role: "user", content: "a first write about tides" }, { role: "assistant", content: "ok" }], { channel: "gateway" });
      const created = (await s.sessions.get("first-write"))!;
      expect(created.channel).toBe("gateway");
      expect(created.title).toBe("a first write about tides");
      expect(created.messageCount).toBe(2);
      expect((await s.sessions.history("first-write", 10)).map((m) => m.content)).toEqual(["a first write about tides", "ok"]);
      expect((await s.sessions.search("tides")).map((x) => x.id)).toContain("first-write");
      await s.sessions.append("first-write", [{ role: "user", content: "and the moon?" }], { channel: "cli" });
      const after = (await s.sessions.get("first-write"))!;
      expect(after.channel).toBe("gateway");
      expect(after.title).toBe("a first write about tides");
      expect(after.messageCount).toBe(3);
      await rejects(() => s.sessions.append("bad id!", [{ role: "user", content: "x" }], { channel: "cli" }), "BAD_REQUEST");
      expect(await s.sessions.get("bad id!")).toBeNull();
    });
    it("messages are numbered in order across appends, with tool calls kept", async (s) => {
      await s.sessions.ensure("s-2", "cli");
      await s.sessions.append("s-2", [{ role: "user", content: "one" }]);
      await s.sessions.append("s-2", [
        { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "memory_recall", arguments: "{}" }] },
        { role: "tool", content: "[]", tool_call_id: "c1", name: "memory_recall" },
        { role: "assistant", content: "two" },
      ]);
      const all = await s.sessions.allMessages("s-2");
      expect(all.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
      expect(all[1]!.toolCalls).toEqual([{ id: "c1", name: "memory_recall", arguments: "{}" }]);
      expect(all[2]!.toolCallId).toBe("c1");
      expect((await s.sessions.messages("s-2", 2)).map((m) => m.content)).toEqual(["[]", "two"]);
      // the last 2 start with an orphaned tool result, which history leaves out
      expect((await s.sessions.history("s-2", 2)).map((m) => m.role)).toEqual(["assistant"]);
      expect((await s.sessions.history("s-2", 10)).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    });

    it("session summaries: history starts after the newest one, every message stays, deleted with the session", async (s) => {
      const turns = Array.from({ length: 6 }, (_, i) => ({ role: (i % 2 ? "assistant" : "user") as "user" | "assistant", content: `m${i + 1}` }));
      await s.sessions.append("sum-1", turns, { channel: "cli" });
      expect(await s.sessions.summary("sum-1")).toBeNull();
      expect(await s.sessions.summaries("sum-1")).toEqual([]);
      await s.sessions.addSummary("sum-1", { fromSeq: 1, throughSeq: 2, content: "first two", model: "m-a" });
      expect((await s.sessions.history("sum-1", 10)).map((m) => m.content)).toEqual(["m3", "m4", "m5", "m6"]);
      // the limit counts messages after the summary
      expect((await s.sessions.history("sum-1", 2)).map((m) => m.content)).toEqual(["m5", "m6"]);
      await s.sessions.addSummary("sum-1", { fromSeq: 3, throughSeq: 4, content: "first four", model: "m-b" });
      expect((await s.sessions.history("sum-1", 10)).map((m) => m.content)).toEqual(["m5", "m6"]);
      const newest = (await s.sessions.summary("sum-1"))!;
      expect(newest).toMatchObject({ fromSeq: 3, throughSeq: 4, content: "first four", model: "m-b" });
      expect(typeof newest.createdAt).toBe("string");
      expect((await s.sessions.summaries("sum-1")).map((x) => [x.fromSeq, x.throughSeq, x.content])).toEqual([
        [1, 2, "first two"],
        [3, 4, "first four"],
      ]);
      // a second summary through the same message replaces the first
      await s.sessions.addSummary("sum-1", { fromSeq: 3, throughSeq: 4, content: "first four, again", model: "m-c" });
      expect((await s.sessions.summaries("sum-1")).map((x) => x.content)).toEqual(["first two", "first four, again"]);
      // nothing is deleted by a summary
      expect((await s.sessions.allMessages("sum-1")).length).toBe(6);
      expect((await s.sessions.messages("sum-1", 100)).length).toBe(6);
      // another session's summary does not move this one's history
      await s.sessions.append("sum-2", turns, { channel: "cli" });
      expect((await s.sessions.history("sum-2", 10)).length).toBe(6);
      await s.sessions.delete("sum-1");
      expect(await s.sessions.summaries("sum-1")).toEqual([]);
      // a session of the same id made again starts without a summary
      await s.sessions.append("sum-1", turns.slice(0, 2), { channel: "cli" });
      expect((await s.sessions.history("sum-1", 10)).map((m) => m.content)).toEqual(["m1", "m2"]);
    });

    it("history drops an assistant tool call whose result never arrived", async (s) => {
      await s.sessions.ensure("s-3", "cli");
      await s.sessions.append("s-3", [
        { role: "user", content: "go" },
        { role: "assistant", content: "let me look", tool_calls: [{ id: "x", name: "t", arguments: "{}" }] },
      ]);
      expect(await s.sessions.history("s-3", 10)).toEqual([
        { role: "user", content: "go" },
        { role: "assistant", content: "let me look" },
      ]);
    });

    it("concurrent appends to one session never collide", async (s) => {
      await s.sessions.ensure("s-4", "cli");
      await Promise.all(Array.from({ length: 20 }, (_, i) => s.sessions.append("s-4", [{ role: "user", content: `m${i}` }])));
      const seqs = (await s.sessions.allMessages("s-4")).map((m) => m.seq);
      expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it("lists most recent first, lists ids, deletes with messages", async (s) => {
      await s.sessions.ensure("s-5", "cli");
      await Bun.sleep(2);
      await s.sessions.append("s-5", [{ role: "user", content: "latest" }]);
      expect((await s.sessions.list(1))[0]!.id).toBe("s-5");
      expect(await s.sessions.ids()).toContain("s-1");
      expect(await s.sessions.delete("s-5")).toEqual({ messages: 1, media: 0 });
      expect(await s.sessions.delete("s-5")).toBeNull();
      expect(await s.sessions.allMessages("s-5")).toEqual([]);
    });

    it("a session keeps the agent it was created for (main by default) and lists by agent; audit entries keep theirs", async (s) => {
      await s.sessions.append("ag-work", [{ role: "user", content: "for work" }], { channel: "telegram", agent: "work" });
      await s.sessions.append("ag-work", [{ role: "assistant", content: "noted" }], { channel: "telegram", agent: "home" });
      await s.sessions.append("ag-main", [{ role: "user", content: "for main" }], { channel: "cli" });
      expect((await s.sessions.get("ag-work"))!.agent).toBe("work");
      expect((await s.sessions.get("ag-main"))!.agent).toBe("main");
      expect((await s.sessions.ensure("ag-ensured", "cli")).agent).toBe("main");
      expect((await s.sessions.list(100, "work")).map((x) => x.id)).toEqual(["ag-work"]);
      expect((await s.sessions.list(100, "nobody"))).toEqual([]);
      const entry = { at: 1, session_id: "ag-work", channel: "telegram", sender: null, tool: "memory_store", risk: "write", args_sha256: "x", args_preview: "{}", decision: "allow", decided_by: "policy", outcome: "ok", error: null, duration_ms: 1 };
      await s.audit.append({ ...entry, agent: "work" });
      await s.audit.append({ ...entry, tool: "memory_recall" });
      const listed = await s.audit.list({ limit: 10 });
      expect(listed.find((e) => e.tool === "memory_store" && e.session_id === "ag-work")!.agent).toBe("work");
      expect(listed.find((e) => e.tool === "memory_recall" && e.session_id === "ag-work")!.agent).toBe("main");
    });

    it("count follows creation and deletion", async (s) => {
      const before = await s.sessions.count();
      await s.sessions.ensure("count-1", "cli");
      await s.sessions.ensure("count-1", "cli");
      await s.sessions.ensure("count-2", "cli");
      expect(await s.sessions.count()).toBe(before + 2);
      await s.sessions.delete("count-1");
      expect(await s.sessions.count()).toBe(before + 1);
    });

    it("search finds by title or id, case-insensitive, with % and _ taken literally; rename sets a title", async (s) => {
      await s.sessions.ensure("trip-plan", "cli");
      await s.sessions.append("trip-plan", [{ role: "user", content: "Porto in May: 100% sunny_days?" }]);
      await s.sessions.ensure("other", "cli");
      await s.sessions.append("other", [{ role: "user", content: "groceries" }]);
      expect((await s.sessions.search("PORTO")).map((x) => x.id)).toEqual(["trip-plan"]);
      expect((await s.sessions.search("trip-")).map((x) => x.id)).toEqual(["trip-plan"]);
      expect((await s.sessions.search("100%")).map((x) => x.id)).toEqual(["trip-plan"]);
      expect((await s.sessions.search("y_d")).map((x) => x.id)).toEqual(["trip-plan"]);
      expect(await s.sessions.search("o%y")).toEqual([]); // a wildcard would match "Porto in May"
      expect(await s.sessions.search("x".repeat(SESSION_SEARCH_MAX_CHARS))).toEqual([]);
      await rejects(async () => s.sessions.search("x".repeat(SESSION_SEARCH_MAX_CHARS + 1)), "BAD_REQUEST");

      const renamed = (await s.sessions.rename("other", "  Weekly   shop "))!;
      expect(renamed.title).toBe("Weekly shop");
      expect((await s.sessions.search("weekly")).map((x) => x.id)).toEqual(["other"]);
      expect(await s.sessions.rename("nope", "x")).toBeNull();
      expect((await s.sessions.rename("other", "t".repeat(SESSION_TITLE_MAX_CHARS)))!.title).toHaveLength(SESSION_TITLE_MAX_CHARS);
      await rejects(async () => s.sessions.rename("other", "t".repeat(SESSION_TITLE_MAX_CHARS + 1)), "BAD_REQUEST");
      await rejects(async () => s.sessions.rename("other", "   "), "BAD_REQUEST");
    });
  });

  describe(`${backend.name}: kept session counts and the search index`, () => {
    const countOf = async (s: Storage, id: string) => (await s.sessions.get(id))!.messageCount;

    it("a session's message count follows appends, a delete by any writer, and the session's delete", async (s) => {
      expect((await s.sessions.ensure("kept-1", "cli")).messageCount).toBe(0);
      await s.sessions.append("kept-1", [
        { role: "user", content: "Kept counts" },
        { role: "assistant", content: "a" },
      ]);
      await s.sessions.append("kept-1", [{ role: "user", content: "b" }]);
      expect(await countOf(s, "kept-1")).toBe(3);
      expect((await s.sessions.ensure("kept-1", "cli")).messageCount).toBe(3);
      expect((await s.sessions.list(500)).find((x) => x.id === "kept-1")?.messageCount).toBe(3);
      expect((await s.sessions.search("kept counts")).map((x) => [x.id, x.messageCount])).toEqual([["kept-1", 3]]);

      await backend.exec(s, "DELETE FROM session_messages WHERE session_id = 'kept-1' AND seq = 1");
      expect(await countOf(s, "kept-1")).toBe(2);
      await s.sessions.append("kept-1", [{ role: "user", content: "c" }]);
      expect(await countOf(s, "kept-1")).toBe(3);

      expect(await s.sessions.delete("kept-1")).toEqual({ messages: 3, media: 0 });
      expect((await s.sessions.ensure("kept-1", "cli")).messageCount).toBe(0);
      await s.sessions.append("kept-1", [{ role: "user", content: "again" }]);
      expect(await countOf(s, "kept-1")).toBe(1);
      expect((await s.sessions.search("kept counts")).map((x) => x.id)).toEqual([]);
      expect((await s.sessions.search("again")).map((x) => x.id)).toEqual(["kept-1"]);
    });

    it("concurrent appends are all counted", async (s) => {
      await s.sessions.ensure("kept-2", "cli");
      await Promise.all(Array.from({ length: 10 }, (_, i) => s.sessions.append("kept-2", [{ role: "user", content: `m${i}` }, { role: "assistant", content: "ok" }])));
      expect(await countOf(s, "kept-2")).toBe(20);
    });

    it("a search by title or id of fewer than three characters still finds (it cannot use the trigram index)", async (s) => {
      await s.sessions.ensure("kept-3", "cli");
      await s.sessions.rename("kept-3", "Qz report");
      expect((await s.sessions.search("QZ")).map((x) => x.id)).toEqual(["kept-3"]);
      expect((await s.sessions.search("qz ")).map((x) => x.id)).toEqual(["kept-3"]);
      expect((await s.sessions.search("t-3")).map((x) => x.id)).toEqual(["kept-3"]);
      await s.sessions.rename("kept-3", "Renamed");
      expect(await s.sessions.search("qz ")).toEqual([]);
    });

    it("with thousands of sessions, a search that finds nothing reads the index, not every session", async (s) => {
      await backend.exec(
        s,
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
         INSERT INTO sessions (id, title, channel, created_at, updated_at)
         SELECT 'bulk-' || i, 'Bulk session number ' || i, 'cli', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z' FROM n`,
      );
      await backend.exec(s, "ANALYZE");
      expect(await backend.searchPlan(s, "zebra")).toContain(backend.searchIndex);
      expect(await s.sessions.search("zebra")).toEqual([]);
      expect((await s.sessions.search("NUMBER 2999")).map((x) => x.id)).toEqual(["bulk-2999"]);
      expect((await s.sessions.search("bulk-1234")).map((x) => x.id)).toEqual(["bulk-1234"]);
      expect(await s.sessions.search("number 3001")).toEqual([]);
    });
  });

  describe(`${backend.name}: media`, () => {
    const png = (seed: number) => {
      const bytes = new Uint8Array(64);
      bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      bytes[63] = seed;
      return bytes;
    };
    const hash = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

    it("bytes are kept once by hash and read back whole", async (s) => {
      const data = png(1);
      const sha256 = hash(data);
      const before = await s.media.count();
      await s.media.put({ sha256, mime: "image/png", data });
      await s.media.put({ sha256, mime: "image/png", data });
      expect(await s.media.count()).toBe(before + 1);
      const back = (await s.media.get(sha256))!;
      expect(back.mime).toBe("image/png");
      expect([...back.data]).toEqual([...data]);
      expect(await s.media.get("0".repeat(64))).toBeNull();
    });

    it("messages keep their media refs without bytes; deleting a session drops the bytes no other session refers to", async (s) => {
      const own = png(2);
      const shared = png(3);
      const [ownHash, sharedHash] = [hash(own), hash(shared)];
      await s.media.put({ sha256: ownHash, mime: "image/png", data: own });
      await s.media.put({ sha256: sharedHash, mime: "image/png", data: shared });
      const ref = (sha256: string) => ({ kind: "image" as const, mime: "image/png" as const, sha256, bytes: 64, data: "AAAA" });
      await s.sessions.ensure("media-a", "cli");
      await s.sessions.ensure("media-b", "cli");
      await s.sessions.append("media-a", [
        { role: "user", content: "look", media: [ref(ownHash), ref(sharedHash)] },
        { role: "assistant", content: "seen" },
      ]);
      await s.sessions.append("media-b", [{ role: "user", content: "again", media: [ref(sharedHash)] }]);
      const history = await s.sessions.history("media-a", 10);
      expect(history[0]!.media).toEqual([
        { kind: "image", mime: "image/png", sha256: ownHash, bytes: 64 },
        { kind: "image", mime: "image/png", sha256: sharedHash, bytes: 64 },
      ]);
      expect((await s.sessions.allMessages("media-a"))[0]!.media?.length).toBe(2);
      expect(await s.sessions.delete("media-a")).toEqual({ messages: 2, media: 2 });
      expect(await s.media.get(ownHash)).toBeNull();
      expect(await s.media.get(sharedHash)).not.toBeNull();
      expect(await s.sessions.delete("media-b")).toEqual({ messages: 1, media: 1 });
      expect(await s.media.get(sharedHash)).toBeNull();
    });
  });

  describe(`${backend.name}: usage`, () => {
    const usage = (cost: number | null, input = 100, output = 10, cached = 40, model = "m1") =>
      ({ provider: "p", model, input_tokens: input, output_tokens: output, cached_input_tokens: cached, cost_usd: cost });

    it("an assistant message keeps its usage; kept totals add up per day, channel, sender, model and session", async (s) => {
      await s.sessions.append("u-1", [{ role: "user", content: "hi" }, { role: "assistant", content: "one", usage: usage(0.5) }], { channel: "telegram" });
      const kept = await s.sessions.messages("u-1");
      expect(kept.map((m) => m.usage ?? null)).toEqual([null, usage(0.5)]);
      expect((await s.sessions.history("u-1", 10)).some((m) => "usage" in m)).toBe(false);
      const charge = { day: "2030-01-02", channel: "telegram", sender: "telegram:42" };
      await s.usage.add(usageDeltas("u-1", [usage(0.5)], charge));
      await s.usage.add(usageDeltas("u-1", [usage(null, 7, 3, 0, "m2")], charge));
      await s.usage.add(usageDeltas("u-2", [usage(0.25)], { day: "2030-01-03", channel: "cli", sender: null }));
      const days = await s.usage.totals("day", "2030-01-01");
      expect(days).toEqual([
        { key: "2030-01-02", input_tokens: 107, output_tokens: 13, cached_input_tokens: 40, cost_usd: 0.5, calls: 2 },
        { key: "2030-01-03", input_tokens: 100, output_tokens: 10, cached_input_tokens: 40, cost_usd: 0.25, calls: 1 },
      ]);
      expect((await s.usage.totals("day", "2030-01-03")).map((d) => d.key)).toEqual(["2030-01-03"]);
      expect((await s.usage.totals("model", "2030-01-01")).map((m) => [m.key, m.calls])).toEqual([["p/m1", 2], ["p/m2", 1]]);
      expect((await s.usage.totals("channel", "2030-01-01")).map((c) => [c.key, c.cost_usd])).toEqual([["cli", 0.25], ["telegram", 0.5]]);
      expect((await s.usage.totals("session", "2030-01-01")).map((c) => c.key)).toEqual(["u-1", "u-2"]);
      expect(await s.usage.session("u-1")).toEqual({ input_tokens: 107, output_tokens: 13, cached_input_tokens: 40, cost_usd: 0.5, calls: 2 });
      expect(await s.usage.session("nobody")).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cost_usd: 0, calls: 0 });
      const spent = await s.usage.spent([{ kind: "sender", key: "telegram:42" }, { kind: "all", key: "" }], "2030-01-02", "2030-01-02");
      expect(spent.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
        { kind: "all", key: "", day: "2030-01-02", cost_usd: 0.5 },
        { kind: "sender", key: "telegram:42", day: "2030-01-02", cost_usd: 0.5 },
      ]);
      // what a session spent outlives it
      await s.sessions.delete("u-1");
      expect((await s.usage.totals("day", "2030-01-02"))[0]!.cost_usd).toBe(0.5);
    });

    it("usage added at once by many writers adds up (one shared row per day and scope)", async (s) => {
      const charge = { day: "2031-05-01", channel: "gateway", sender: null };
      await Promise.all(Array.from({ length: 20 }, () => s.usage.add(usageDeltas(null, [usage(0.125, 1, 1, 0)], charge))));
      expect(await s.usage.totals("day", "2031-05-01")).toEqual([
        { key: "2031-05-01", input_tokens: 20, output_tokens: 20, cached_input_tokens: 0, cost_usd: 2.5, calls: 20 },
      ]);
    });

    it("one add of as many rows as a flush starts with adds each row, whatever its key's characters", async (s) => {
      const day = "2031-06-01";
      const keys = Array.from({ length: USAGE_PENDING_MAX_ROWS }, (_, i) => `s-${i} "quoted" \\ é \n`);
      const deltas = keys.map((key, i) => ({ kind: "session", key, day, input_tokens: i, output_tokens: 1, cached_input_tokens: 0, cost_usd: 0.125, calls: 1 }));
      await s.usage.add(deltas);
      await s.usage.add(deltas.slice(0, 1));
      const rows = await s.usage.totals("session", day);
      expect(rows.length).toBe(USAGE_PENDING_MAX_ROWS);
      expect(await s.usage.session(keys[0]!)).toEqual({ input_tokens: 0, output_tokens: 2, cached_input_tokens: 0, cost_usd: 0.25, calls: 2 });
      expect(await s.usage.session(keys.at(-1)!)).toEqual({
        input_tokens: USAGE_PENDING_MAX_ROWS - 1,
        output_tokens: 1,
        cached_input_tokens: 0,
        cost_usd: 0.125,
        calls: 1,
      });
    });
  });

  describe(`${backend.name}: tokens`, () => {
    it("a token verifies, is listed, counted, and stops verifying once revoked", async (s) => {
      const { token, record } = await s.tokens.create("laptop");
      expect(token.startsWith("prx_")).toBe(true);
      expect((await s.tokens.verify(token))?.id).toBe(record.id);
      expect(await s.tokens.verify(token + "x")).toBeNull();
      expect(await s.tokens.verify("")).toBeNull();
      expect((await s.tokens.list()).map((t) => t.name)).toContain("laptop");
      const active = await s.tokens.activeCount();
      expect(await s.tokens.revoke(record.id)).toBe(true);
      expect(await s.tokens.revoke(record.id)).toBe(false);
      expect(await s.tokens.activeCount()).toBe(active - 1);
      expect(await s.tokens.verify(token)).toBeNull();
      await rejects(() => s.tokens.revoke("tok_missing"), "NOT_FOUND");
      await rejects(() => s.tokens.create("  "), "USAGE");
    });
  });

  describe(`${backend.name}: the gateway's pairing code`, () => {
    it("a code is consumed by the right guess; wrong ones count down; one past the budget burns it; a new code starts over", async (s) => {
      const [right, wrong] = ["a".repeat(64), "b".repeat(64)];
      expect(await s.gatewayPairing.guess(right, 2)).toEqual({ outcome: "closed" });
      await s.gatewayPairing.open(right, now + 60_000);
      expect(await s.gatewayPairing.guess(wrong, 2)).toEqual({ outcome: "wrong", left: 1 });
      expect(await s.gatewayPairing.guess(wrong, 2)).toEqual({ outcome: "wrong", left: 0 });
      expect(await s.gatewayPairing.guess(right, 2)).toEqual({ outcome: "ok" });
      expect(await s.gatewayPairing.guess(right, 2)).toEqual({ outcome: "closed" });

      await s.gatewayPairing.open(right, now + 60_000);
      for (let i = 0; i < 2; i++) await s.gatewayPairing.guess(wrong, 2);
      expect(await s.gatewayPairing.guess(wrong, 2)).toEqual({ outcome: "burned" });
      expect(await s.gatewayPairing.guess(right, 2)).toEqual({ outcome: "burned" });
      await s.gatewayPairing.open(right, now + 60_000);
      expect(await s.gatewayPairing.guess(right, 2)).toEqual({ outcome: "ok" });

      await s.gatewayPairing.open(right, now + 60_000);
      now += 60_000;
      expect(await s.gatewayPairing.guess(right, 2)).toEqual({ outcome: "closed" });
    });
  });

  describe(`${backend.name}: stored responses`, () => {
    it("a stored response is read and deleted only by the credential that made it", async (s) => {
      const record = {
        id: "resp_suite1",
        scope: "token-a",
        createdAt: 1_700_000_000,
        response: JSON.stringify({ id: "resp_suite1", output: [] }),
        inputItems: JSON.stringify([{ id: "msg_1", type: "message" }]),
        context: JSON.stringify([{ type: "message", role: "user", content: "hi" }]),
      };
      await s.responses.put(record);
      expect(await s.responses.get("token-a", "resp_suite1")).toEqual(record);
      expect(await s.responses.get("token-b", "resp_suite1")).toBeNull();
      expect(await s.responses.delete("token-b", "resp_suite1")).toBe(false);
      expect(await s.responses.delete("token-a", "resp_suite1")).toBe(true);
      expect(await s.responses.get("token-a", "resp_suite1")).toBeNull();
      expect(await s.responses.delete("token-a", "resp_suite1")).toBe(false);
    });

    it(`a stored response is read until ${DEFAULT_RESPONSES_TTL_MS / 86_400_000} days after it was made, then gone and cleaned up`, async (s) => {
      const started = now;
      const createdAt = Math.floor(now / 1000);
      const record = { id: "resp_ttl", scope: "token-a", createdAt, response: "{}", inputItems: "[]", context: "[]" };
      await s.responses.put(record);
      now = createdAt * 1000 + DEFAULT_RESPONSES_TTL_MS;
      expect(await s.responses.get("token-a", "resp_ttl")).toEqual(record);
      now += 1;
      expect(await s.responses.get("token-a", "resp_ttl")).toBeNull();
      expect(await s.responses.purgeExpired()).toBe(1);
      // a cleanup pass ran just now: the next one waits its interval
      await s.responses.put({ ...record, id: "resp_ttl_old", createdAt: createdAt - 1 });
      expect(await s.responses.purgeExpired()).toBe(0);
      now += RESPONSES_PURGE_INTERVAL_MS;
      expect(await s.responses.purgeExpired()).toBe(1);
      now = started;
    });

    it(`a cleanup pass removes at most ${RESPONSES_PURGE_BATCH} expired responses; the next pass the rest`, async (s) => {
      const started = now;
      const createdAt = Math.floor(now / 1000) - DEFAULT_RESPONSES_TTL_MS / 1000 - 10;
      // a pass now: the writes below come within its interval and clean nothing up themselves
      await s.responses.purgeExpired();
      for (let i = 0; i <= RESPONSES_PURGE_BATCH; i++) {
        await s.responses.put({ id: `resp_batch_${i}`, scope: "token-b", createdAt, response: "{}", inputItems: "[]", context: "[]" });
      }
      now += RESPONSES_PURGE_INTERVAL_MS;
      expect(await s.responses.purgeExpired()).toBe(RESPONSES_PURGE_BATCH);
      now += RESPONSES_PURGE_INTERVAL_MS;
      expect(await s.responses.purgeExpired()).toBe(1);
      now = started;
    });
  });

  describe(`${backend.name}: idempotency keys`, () => {
    it("a key is claimed once, replays its reply, and conflicts on another body or while pending", async (s) => {
      expect(await s.idempotency.begin("tok", "k1", "body-a")).toEqual({ kind: "new" });
      await rejects(() => s.idempotency.begin("tok", "k1", "body-a"), "CONFLICT");
      await s.idempotency.complete("tok", "k1", 200, '{"ok":true}');
      expect(await s.idempotency.begin("tok", "k1", "body-a")).toEqual({ kind: "replay", status: 200, body: '{"ok":true}' });
      await rejects(() => s.idempotency.begin("tok", "k1", "body-b"), "CONFLICT");
      // scoped per credential
      expect(await s.idempotency.begin("other", "k1", "body-b")).toEqual({ kind: "new" });
      await s.idempotency.release("other", "k1");
      expect(await s.idempotency.begin("other", "k1", "body-c")).toEqual({ kind: "new" });
    });

    it("concurrent claims of one key: exactly one wins", async (s) => {
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, async () => s.idempotency.begin("tok", "race", "b")));
      expect(outcomes.filter((o) => o.status === "fulfilled").length).toBe(1);
    });

    it("keys at the byte limit pass, one past fails", async (s) => {
      expect((await s.idempotency.begin("tok", "k".repeat(IDEMPOTENCY_KEY_MAX_BYTES), "b")).kind).toBe("new");
      await rejects(() => s.idempotency.begin("tok", "k".repeat(IDEMPOTENCY_KEY_MAX_BYTES + 1), "b"), "BAD_REQUEST");
    });

    it("expired keys can be claimed again", async (s) => {
      expect(await s.idempotency.begin("tok", "old", "a")).toEqual({ kind: "new" });
      await s.idempotency.complete("tok", "old", 200, "x");
      now += 86_400_000 + 1;
      expect(await s.idempotency.begin("tok", "old", "other")).toEqual({ kind: "new" });
    });
  });

  describe(`${backend.name}: plugin kv`, () => {
    it("values round-trip, keys list by prefix in byte order, deletes say whether a key existed", async (s) => {
      await s.pluginKv.set("p", "b/2", new Uint8Array([2]), 1024);
      await s.pluginKv.set("p", "b/1", new Uint8Array([1, 1]), 1024);
      await s.pluginKv.set("p", "a", new Uint8Array([0]), 1024);
      await s.pluginKv.set("q", "b/3", new Uint8Array([3]), 1024);
      expect(await s.pluginKv.get("p", "b/1")).toEqual(new Uint8Array([1, 1]));
      expect(await s.pluginKv.get("p", "zzz")).toBeUndefined();
      expect(await s.pluginKv.listKeys("p", "b/", 10)).toEqual(["b/1", "b/2"]);
      expect(await s.pluginKv.listKeys("p", "", 2)).toEqual(["a", "b/1"]);
      expect(await s.pluginKv.delete("p", "a")).toBe(true);
      expect(await s.pluginKv.delete("p", "a")).toBe(false);
    });

    it("the quota counts keys and values: at the limit passes, one byte past fails, a replacement counts once", async (s) => {
      await s.pluginKv.set("quota", "k", new Uint8Array(9), 10); // 1 + 9 = 10
      await s.pluginKv.set("quota", "k", new Uint8Array(9), 10);
      await rejects(() => s.pluginKv.set("quota", "k", new Uint8Array(10), 10), "LIMIT_EXCEEDED");
      await rejects(() => s.pluginKv.set("quota", "k".repeat(KV_KEY_MAX_BYTES + 1), new Uint8Array(1), 1 << 20), "LIMIT_EXCEEDED");
      await rejects(() => s.pluginKv.set("quota", "", new Uint8Array(1), 10), "BAD_REQUEST");
    });

    it("a write the quota refuses changes nothing: the old value stays, a new key is not added, the others count", async (s) => {
      await s.pluginKv.set("quota2", "a", new Uint8Array([1, 2, 3]), 10); // 1 + 3
      await s.pluginKv.set("quota2", "b", new Uint8Array([4]), 10); // 1 + 1: 6 in all
      await rejects(() => s.pluginKv.set("quota2", "a", new Uint8Array(8), 10), "LIMIT_EXCEEDED"); // 2 + 9 = 11
      await rejects(() => s.pluginKv.set("quota2", "c", new Uint8Array(4), 10), "LIMIT_EXCEEDED"); // 6 + 5 = 11
      await rejects(() => s.pluginKv.set("quota2", "d", new Uint8Array(20), 10), "LIMIT_EXCEEDED"); // alone over it
      expect(await s.pluginKv.get("quota2", "a")).toEqual(new Uint8Array([1, 2, 3]));
      expect(await s.pluginKv.listKeys("quota2", "", 10)).toEqual(["a", "b"]);
      await s.pluginKv.set("quota2", "c", new Uint8Array(3), 10); // 6 + 4 = 10: at the limit
      expect(await s.pluginKv.get("quota2", "c")).toEqual(new Uint8Array(3));
    });
  });

  describe(`${backend.name}: session links`, () => {
    it("a child knows its parent and depth; a parent lists its children oldest first; a child is linked once", async (s) => {
      await s.sessionLinks.link({ childId: "link-c1", parentId: "link-p", depth: 1, createdAt: 2000 });
      await s.sessionLinks.link({ childId: "link-c0", parentId: "link-p", depth: 1, createdAt: 1000 });
      await s.sessionLinks.link({ childId: "link-g", parentId: "link-c1", depth: 2, createdAt: 3000 });
      expect(await s.sessionLinks.parentOf("link-g")).toEqual({ childId: "link-g", parentId: "link-c1", depth: 2, createdAt: 3000 });
      expect(await s.sessionLinks.parentOf("link-p")).toBeNull();
      expect((await s.sessionLinks.children("link-p", 10)).map((l) => l.childId)).toEqual(["link-c0", "link-c1"]);
      expect((await s.sessionLinks.children("link-p", 1)).map((l) => l.childId)).toEqual(["link-c0"]);
      let refused = false;
      try {
        await s.sessionLinks.link({ childId: "link-g", parentId: "link-p", depth: 1, createdAt: 4000 });
      } catch {
        refused = true;
      }
      expect(refused).toBe(true);
      expect((await s.sessionLinks.parentOf("link-g"))!.parentId).toBe("link-c1");
      await s.sessionLinks.unlink("link-c1");
      expect(await s.sessionLinks.parentOf("link-c1")).toBeNull();
      expect((await s.sessionLinks.children("link-p", 10)).map((l) => l.childId)).toEqual(["link-c0"]);
      expect((await s.sessionLinks.parentOf("link-g"))!.depth).toBe(2);
    });
  });

  describe(`${backend.name}: cron state`, () => {
    it("one claimant wins a slot; the lease is renewed, taken over once expired, and a stale fence writes nothing", async (s) => {
      const row = await s.cron.ensure("p/job", "* * * * *", 1000);
      expect(row.last_slot).toBe(1000);
      expect((await s.cron.ensure("p/job", "*/5 * * * *", 5000)).schedule).toBe("* * * * *");
      const claims = await Promise.all([
        s.cron.claim("p/job", 60_000, 60_001, "a", 70_000),
        s.cron.claim("p/job", 60_000, 60_001, "b", 70_000),
      ]);
      const won = claims.filter((c) => c !== null);
      expect(won.length).toBe(1);
      const fence = won[0]!.fence;
      expect(await s.cron.renew("p/job", fence, 80_000)).toBe(true);
      expect(await s.cron.takeOver("p/job", 60_000, 79_999, "c", 90_000)).toBeNull(); // lease still valid
      const taken = await s.cron.takeOver("p/job", 60_000, 80_001, "c", 90_000);
      expect(taken!.fence).toBe(fence + 1);
      expect(await s.cron.finish("p/job", fence, 85_000, true, null)).toBe(false); // the dead runner's late write
      expect(await s.cron.renew("p/job", fence, 95_000)).toBe(false);
      expect(await s.cron.finish("p/job", taken!.fence, 86_000, true, null)).toBe(true);
      const after = (await s.cron.get("p/job"))!;
      expect(after.lease_owner).toBeNull();
      expect(after.fires).toBe(2);
      expect(await s.cron.takeOver("p/job", 60_000, 999_999, "d", 1_000_000)).toBeNull(); // finished: nothing to take
      expect(await s.cron.claim("p/job", 60_000, 61_000, "a", 70_000)).toBeNull(); // a slot is claimed once
    });

    it("rebaseline never moves back; removal is recorded", async (s) => {
      await s.cron.ensure("p/other", "* * * * *", 10_000);
      expect((await s.cron.rebaseline("p/other", "*/2 * * * *", 5_000)).last_slot).toBe(10_000);
      await s.cron.markRemoved("p/other", 20_000);
      expect((await s.cron.get("p/other"))!.removed_at).toBe(20_000);
      expect((await s.cron.rebaseline("p/other", "*/2 * * * *", 30_000)).removed_at).toBeNull();
      expect(await s.cron.get("p/none")).toBeNull();
      await s.cron.forget("p/other");
      expect(await s.cron.get("p/other")).toBeNull();
    });
  });

  describe(`${backend.name}: channel state`, () => {
    it("cursor, inbox once per platform id, resume of open messages in order, prune of answered ones", async (s) => {
      expect(await s.channels.getCursor("tg")).toBeNull();
      expect(await s.channels.admit("tg", "m1", "tg:1", '{"n":1}', "received")).toBe(true);
      expect(await s.channels.admit("tg", "m1", "tg:1", '{"n":1}', "received")).toBe(false);
      expect(await s.channels.admit("tg", "m2", "tg:1", '{"n":2}', "received")).toBe(true);
      expect(await s.channels.admit("tg", "m3", "tg:2", '{"n":3}', "ignored")).toBe(true);
      await s.channels.replied("tg", "m1", ["a", "b"]);
      await s.channels.partSent("tg", "m1", 1);
      expect(await s.channels.entry("tg", "m1")).toEqual({ payload: '{"n":1}', state: "replied", reply: ["a", "b"], partsSent: 1, startedSeq: null });
      expect((await s.channels.open("tg")).map((r) => r.payload)).toEqual(['{"n":1}', '{"n":2}']);
      await s.channels.done("tg", "m1");
      expect((await s.channels.open("tg")).length).toBe(1);
      // the last part sent: its count and the done state in one write
      await s.channels.replied("tg", "m2", ["c"]);
      await s.channels.delivered("tg", "m2", 1);
      expect(await s.channels.entry("tg", "m2")).toEqual({ payload: '{"n":2}', state: "done", reply: ["c"], partsSent: 1, startedSeq: null });
      expect(await s.channels.open("tg")).toEqual([]);
      expect(await s.channels.prune("tg", Date.now() + 1000)).toBe(3);
      // the cursor moved in the write of a message, new or not, and in the write of a liveness row
      expect(await s.channels.admit("tg", "m5", "tg:1", '{"n":5}', "received", "43")).toBe(true);
      expect(await s.channels.getCursor("tg")).toBe("43");
      expect(await s.channels.admit("tg", "m5", "tg:1", '{"n":5}', "received", "44")).toBe(false);
      expect(await s.channels.getCursor("tg")).toBe("44");
      const status = { channel: "tg", pid: 1, state: "running", last_inbound: 5, last_outbound: null, last_error: null, last_error_at: null, updated_at: 7 };
      await s.channels.writeStatus(status, "45");
      expect(await s.channels.getCursor("tg")).toBe("45");
      expect((await s.channels.statuses()).find((r) => r.channel === "tg")).toEqual(status);
      expect(await s.channels.entry("tg", "m1")).toBeNull();
    });

    it("a session write answering a stored message marks it started in the same write; a later state is kept", async (s) => {
      const answering = { channel: "mk", messageId: "u1" };
      expect(await s.channels.admit("mk", "u1", "mk:1", '{"n":1}', "received")).toBe(true);
      await s.sessions.append("mk:1", [{ role: "user", content: "hello" }], { channel: "mk", agent: "main", endsTurn: false, answering });
      expect(await s.channels.entry("mk", "u1")).toMatchObject({ state: "started", reply: null });
      expect((await s.channels.open("mk")).map((r) => r.state)).toEqual(["started"]);
      // the last write of a turn carries it too (a blocked turn writes its user message with its answer)
      await s.sessions.append("mk:1", [{ role: "user", content: "again" }, { role: "assistant", content: "no" }], { agent: "main", endsTurn: true, answering });
      await s.channels.replied("mk", "u1", ["hi"]);
      await s.sessions.append("mk:1", [{ role: "user", content: "late" }], { agent: "main", endsTurn: false, answering });
      expect(await s.channels.entry("mk", "u1")).toMatchObject({ state: "replied", reply: ["hi"] });
      expect((await s.sessions.messages("mk:1")).map((m) => m.content)).toEqual(["hello", "again", "no", "late"]);
      // a message of another channel with the same id is not touched
      expect(await s.channels.admit("other", "u1", "other:1", '{"n":1}', "received")).toBe(true);
      await s.sessions.append("mk:1", [{ role: "user", content: "x" }], { agent: "main", endsTurn: false, answering });
      expect((await s.channels.entry("other", "u1"))?.state).toBe("received");
    });

    it("a turn's first write titles a session without a title and leaves its updated_at to the turn's last write", async (s) => {
      expect(await s.channels.admit("ut", "u1", "ut:1", '{"n":1}', "received")).toBe(true);
      await s.sessions.append("ut:1", [{ role: "user", content: "first question" }], { channel: "ut", agent: "main", endsTurn: false, answering: { channel: "ut", messageId: "u1" } });
      expect(await s.sessions.get("ut:1")).toMatchObject({ title: "first question", messageCount: 1 });
      await s.sessions.append("ut:1", [{ role: "assistant", content: "first answer" }], { agent: "main", endsTurn: true });
      const answered = (await s.sessions.get("ut:1"))!;
      // the store's clock (ISO milliseconds) moves on before each later write
      await Bun.sleep(5);
      expect(await s.channels.admit("ut", "u2", "ut:1", '{"n":2}', "received")).toBe(true);
      await s.sessions.append("ut:1", [{ role: "user", content: "second question" }], { channel: "ut", agent: "main", endsTurn: false, answering: { channel: "ut", messageId: "u2" } });
      const started = (await s.sessions.get("ut:1"))!;
      expect(started).toMatchObject({ title: "first question", messageCount: 3, updatedAt: answered.updatedAt });
      expect(await s.channels.entry("ut", "u2")).toMatchObject({ state: "started", startedSeq: 3 });
      await Bun.sleep(5);
      await s.sessions.append("ut:1", [{ role: "assistant", content: "second answer" }], { agent: "main", endsTurn: true });
      expect((await s.sessions.get("ut:1"))!.updatedAt > answered.updatedAt).toBe(true);
    });

    it("the started mark records its message's seq; a turn run again reads the history that ends with its own messages", async (s) => {
      const session = "an:1";
      await s.sessions.append(session, [{ role: "user", content: "earlier" }, { role: "assistant", content: "earlier answer" }], { channel: "an" });
      expect(await s.channels.admit("an", "a1", "an:1", '{"n":1}', "received")).toBe(true);
      // the user message and a first round in one write: the mark is the user message's
      const call = { id: "c1", name: "shell", arguments: "{}" };
      await s.sessions.append(session, [{ role: "user", content: "cut off" }], { channel: "an", agent: "main", endsTurn: false, answering: { channel: "an", messageId: "a1" } });
      await s.sessions.append(session, [{ role: "assistant", content: "", tool_calls: [call] }, { role: "tool", content: "ran", tool_call_id: "c1" }]);
      expect(await s.channels.entry("an", "a1")).toMatchObject({ state: "started", startedSeq: 3 });
      // another turn on the session since
      expect(await s.channels.admit("an", "a2", "an:1", '{"n":2}', "received")).toBe(true);
      await s.sessions.append(session, [{ role: "user", content: "next" }, { role: "assistant", content: "next answer" }], { channel: "an", agent: "main", endsTurn: true, answering: { channel: "an", messageId: "a2" } });
      expect((await s.channels.entry("an", "a2"))?.startedSeq).toBe(6);
      const contents = (messages: { content: string }[]) => messages.map((m) => m.content);
      expect(contents(await s.sessions.history(session, 50, 3))).toEqual(["earlier", "earlier answer", "cut off", "", "ran"]);
      expect(contents(await s.sessions.history(session, 2, 3))).toEqual(["", "ran"]);
      expect(contents(await s.sessions.history(session, 50, 6))).toEqual(["earlier", "earlier answer", "cut off", "", "ran", "next", "next answer"]);
      expect(contents(await s.sessions.history(session, 50))).toEqual(["earlier", "earlier answer", "cut off", "", "ran", "next", "next answer"]);
      // a summary made before the turn's message is its history's start; one made after it is not
      await s.sessions.addSummary(session, { fromSeq: 1, throughSeq: 2, content: "sum", model: "m" });
      expect(contents(await s.sessions.history(session, 50, 3))).toEqual(["cut off", "", "ran"]);
      await s.sessions.addSummary(session, { fromSeq: 1, throughSeq: 6, content: "sum", model: "m" });
      expect(contents(await s.sessions.history(session, 50, 3))).toEqual(["cut off", "", "ran"]);
      expect(contents(await s.sessions.history(session, 50))).toEqual(["next answer"]);
    });

    it("liveness rows are replaced per channel and listed by name", async (s) => {
      const row = { channel: "zz", pid: 1, state: "running", last_inbound: 5, last_outbound: null, last_error: null, last_error_at: null, updated_at: 7 };
      await s.channels.writeStatus(row);
      await s.channels.writeStatus({ ...row, pid: 2, last_error: "boom", last_error_at: 6 });
      const got = (await s.channels.statuses()).find((r) => r.channel === "zz");
      expect(got).toEqual({ ...row, pid: 2, last_error: "boom", last_error_at: 6 });
    });
  });

  describe(`${backend.name}: channel pairings`, () => {
    it("a sender gets one pending code until approved; approval and revocation are seen", async (s) => {
      const code = await s.pairings.request("tg", "u1", "Ann");
      expect(code).toMatch(/^[A-Z2-9]{6}$/);
      expect(await s.pairings.request("tg", "u1", "Ann")).toBe(code);
      expect(await s.pairings.isApproved("tg", "u1")).toBe(false);
      const approved = await s.pairings.approve(code.toLowerCase());
      expect(approved).toMatchObject({ channel: "tg", sender_id: "u1", state: "approved", code: null });
      expect(await s.pairings.isApproved("tg", "u1")).toBe(true);
      await rejects(() => s.pairings.approve(code), "NOT_FOUND");
      expect((await s.pairings.list()).map((p) => p.sender_id)).toContain("u1");
      expect(await s.pairings.revoke("u1")).toBe(1);
      expect(await s.pairings.isApproved("tg", "u1")).toBe(false);
    });

    it("codes expire", async (s) => {
      const code = await s.pairings.request("tg", "u2", "Bob");
      now += 60 * 60 * 1000;
      await rejects(() => s.pairings.approve(code), "NOT_FOUND");
      expect(await s.pairings.request("tg", "u2", "Bob")).not.toBe(code);
    });
  });

  describe(`${backend.name}: cron tool jobs`, () => {
    const job = (id: string, session: string, created: number) => ({
      id,
      name: null,
      session_id: session,
      channel: "telegram",
      chat_id: "42",
      thread_id: null,
      owner: "7",
      schedule: '{"kind":"at","at":"2026-01-01T00:00:00.000Z"}',
      payload: '{"kind":"systemEvent","text":"hi"}',
      created_at: created,
      run_requested_at: null,
    });

    it("jobs are added, listed per session oldest first, counted and removed with their runs", async (s) => {
      await s.cronJobs.add(job("j2", "telegram:42", 2000));
      await s.cronJobs.add(job("j1", "telegram:42", 1000));
      await s.cronJobs.add(job("j3", "gateway:x", 3000));
      expect((await s.cronJobs.list("telegram:42")).map((r) => r.id)).toEqual(["j1", "j2"]);
      expect((await s.cronJobs.list()).map((r) => r.id)).toEqual(["j1", "j2", "j3"]);
      expect(await s.cronJobs.count("telegram:42")).toBe(2);
      expect(await s.cronJobs.count()).toBe(3);
      expect(await s.cronJobs.get("j1")).toEqual(job("j1", "telegram:42", 1000));
      await s.cronJobs.recordRun({ job_id: "j1", at: 5000, slot: 4000, ok: true, detail: "sent" }, 2);
      expect(await s.cronJobs.remove("j1")).toBe(true);
      expect(await s.cronJobs.remove("j1")).toBe(false);
      expect(await s.cronJobs.runs("j1", 10)).toEqual([]);
      expect(await s.cronJobs.get("j1")).toBeNull();
    });

    it("a run asked for is taken by exactly one process; runs keep the newest `keep`", async (s) => {
      await s.cronJobs.add(job("r1", "telegram:42", 1000));
      expect(await s.cronJobs.requestRun("nope", 5000)).toBe(false);
      expect(await s.cronJobs.requestRun("r1", 5000)).toBe(true);
      expect((await s.cronJobs.get("r1"))!.run_requested_at).toBe(5000);
      const taken = await Promise.all([s.cronJobs.takeRun("r1", 5000), s.cronJobs.takeRun("r1", 5000)]);
      expect(taken.filter(Boolean).length).toBe(1);
      for (let i = 1; i <= 4; i++) await s.cronJobs.recordRun({ job_id: "r1", at: i, slot: null, ok: i !== 3, detail: `run ${i}` }, 3);
      const runs = await s.cronJobs.runs("r1", 10);
      expect(runs.map((r) => [r.detail, r.ok, r.slot])).toEqual([["run 4", true, null], ["run 3", false, null], ["run 2", true, null]]);
      expect((await s.cronJobs.runs("r1", 1)).map((r) => r.detail)).toEqual(["run 4"]);
    });
  });

  describe(`${backend.name}: migrations`, () => {
    it("every known migration is applied", async (s) => {
      const status = await s.status();
      expect(status.backend).toBe(s.backend);
      expect(status.pending).toEqual([]);
      expect(status.version).toBe(status.latest);
    });
  });
}

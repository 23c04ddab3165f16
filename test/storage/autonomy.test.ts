/**
 * Pending approvals, the audit log and the owner mark of pairings, on SQLite and on PostgreSQL (shared by replicas):
 * two brokers on one PostgreSQL schema see the same pending approval, and the answer given through one reaches the
 * call waiting on the other.
 */
import { afterAll, describe, expect } from "bun:test";
import { ApprovalBroker } from "../../src/agent/approvals/index.ts";
import { openSqliteStorage } from "../../src/storage/open.ts";
import { pgStorage } from "../../src/storage/postgres/open.ts";
import type { ApprovalRow, BackendStorage } from "../../src/storage/types.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const row = (over: Partial<ApprovalRow>): ApprovalRow => ({
  id: "apr_1",
  code: "4821",
  session_id: "s1",
  channel: "tg",
  chat_key: "tg:100",
  sender: "7",
  tool: "shell",
  risk: "execute",
  args_sha256: "ab",
  args_preview: "{}",
  state: "pending",
  decided_by: null,
  reason: null,
  created_at: 1_000,
  expires_at: 2_000,
  decided_at: null,
  ...over,
});

const schema = uniqueSchema("autonomy");
afterAll(() => dropSchema(schema).catch(() => undefined));

const pgTest = await testNeeding("postgres");
const backends: Array<[string, typeof pgTest, () => Promise<BackendStorage>]> = [
  ["sqlite", (await testNeeding()) as typeof pgTest, async () => openSqliteStorage(":memory:")],
  ["postgres", pgTest, () => pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 })],
];

for (const [name, test, open] of backends) {
  describe(name, () => {
    test("an approval is decided once; the pending list and the chat code see only what is pending and in time", async () => {
      const storage = await open();
      try {
        const id = `apr_${name}_a`;
        await storage.approvals.create(row({ id }));
        expect((await storage.approvals.pending(1_500, 10)).map((r) => r.id)).toContain(id);
        expect((await storage.approvals.byCode("tg", "tg:100", "4821", 1_500))?.id).toBe(id);
        expect(await storage.approvals.byCode("tg", "tg:200", "4821", 1_500)).toBeNull();
        // expired: neither listed nor matched by its code
        expect((await storage.approvals.pending(2_000, 10)).map((r) => r.id)).not.toContain(id);
        const decided = await storage.approvals.decide(id, "allow_session", "api", "fine", 1_600);
        expect(decided).toMatchObject({ id, state: "allow_session", decided_by: "api", reason: "fine" });
        expect(await storage.approvals.decide(id, "deny", "api", null, 1_700)).toBeNull();
        expect(await storage.approvals.allowedForSession("s1", "shell")).toBe(true);
        expect(await storage.approvals.allowedForSession("s1", "file_write")).toBe(false);
      } finally {
        await storage.close();
      }
    });

    test("the audit log lists newest first, by tool and time, at most the limit", async () => {
      const storage = await open();
      try {
        const entry = { session_id: "s", channel: "cli", sender: null, risk: "execute", args_sha256: "x", args_preview: "{}", decided_by: "policy", outcome: "ok", error: null, duration_ms: 3 };
        await storage.audit.append({ ...entry, at: 10, tool: `shell_${name}`, decision: "allow" });
        await storage.audit.append({ ...entry, at: 20, tool: `shell_${name}`, decision: "deny" });
        await storage.audit.append({ ...entry, at: 30, tool: `file_${name}`, decision: "allow" });
        const shell = await storage.audit.list({ tool: `shell_${name}`, limit: 10 });
        expect(shell.map((e) => [Number(e.at), e.decision])).toEqual([[20, "deny"], [10, "allow"]]);
        expect((await storage.audit.list({ tool: `shell_${name}`, since: 15, limit: 10 })).length).toBe(1);
        expect((await storage.audit.list({ limit: 1 })).length).toBe(1);
      } finally {
        await storage.close();
      }
    });

    test("a pairing approved with the owner mark answers approvals; a plain one does not", async () => {
      const storage = await open();
      try {
        const owner = await storage.pairings.request(`tg_${name}`, "1", "Owner");
        const guest = await storage.pairings.request(`tg_${name}`, "2", "Guest");
        expect((await storage.pairings.approve(owner, true)).owner).toBe(true);
        await storage.pairings.approve(guest);
        expect(await storage.pairings.isOwner(`tg_${name}`, "1")).toBe(true);
        expect(await storage.pairings.isOwner(`tg_${name}`, "2")).toBe(false);
        const listed = (await storage.pairings.list()).filter((p) => p.channel === `tg_${name}`);
        expect(listed.map((p) => [p.sender_id, p.owner])).toEqual([["1", true], ["2", false]]);
      } finally {
        await storage.close();
      }
    });
  });
}

describe("replicas", () => {
  pgTest("an approval waiting on one replica is listed and answered on another", async () => {
    const a = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
    const b = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
    try {
      const waiting = new ApprovalBroker(() => a.approvals, undefined, undefined, 20);
      const answering = new ApprovalBroker(() => b.approvals);
      const request = { sessionId: "r1", channel: "gateway", sender: null, tool: "shell", risk: "execute" as const, argsSha256: "ab", preview: "{}", timeoutMs: 60_000 };
      const answer = waiting.ask(request, { kind: "ask" }, new AbortController().signal);
      const pending = await (async () => {
        for (;;) {
          const found = (await answering.pending(100)).find((p) => p.sessionId === "r1");
          if (found) return found;
          await Bun.sleep(10);
        }
      })();
      await answering.decide(pending.id, "allow", "api", null);
      expect(await answer).toEqual({ decision: "allow", by: "api", reason: null });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

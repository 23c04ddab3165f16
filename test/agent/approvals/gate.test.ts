/**
 * The gate in front of a real tool registry and a real SQLite audit log: what runs, what is refused and why (naming
 * the setting), what waits for an answer, and what the audit log keeps of each call (a preview of at most
 * APPROVAL_PREVIEW_MAX_CHARS characters).
 */
import { afterEach, expect, test } from "bun:test";
import { APPROVAL_PREVIEW_MAX_CHARS, ApprovalBroker, ToolGate } from "../../../src/agent/approvals/index.ts";
import type { ApprovalRoute } from "../../../src/agent/approvals/index.ts";
import { AutonomySchema } from "../../../src/config/schema.ts";
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/open.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import type { Tool } from "../../../src/tools/types.ts";

const ran: string[] = [];
const tool = (name: string, risk?: Tool["risk"]): Tool => ({
  spec: { name, description: name, parameters: { type: "object" } },
  ...(risk ? { risk } : {}),
  execute: async (args) => (ran.push(name), { success: true, output: JSON.stringify(args), error: null }),
});

let storage: SqliteStorage;
afterEach(async () => {
  ran.length = 0;
  await storage?.close();
});

function gate(autonomy: Record<string, unknown>): { gate: ToolGate; broker: ApprovalBroker } {
  storage = openSqliteStorage(":memory:");
  const tools = new ToolRegistry({ builtins: [tool("shell"), tool("file_read"), tool("echo_upper"), tool("lookup", "read")] });
  const broker = new ApprovalBroker(() => storage.approvals);
  return { gate: new ToolGate({ autonomy: AutonomySchema.parse(autonomy), tools, broker, audit: () => storage.audit }), broker };
}

const party = { sessionId: "s1", channel: "test", sender: () => "7" };
const context = () => ({ sessionId: "s1", workspace: "/tmp", signal: new AbortController().signal });
const call = (g: ToolGate, route: ApprovalRoute, name: string, args = "{}") => g.forTurn(party, route).call(name, args, context());

test("read tools run under every level (a declared read class counts); the rest is refused there, audited as denied by policy", async () => {
  const { gate: g } = gate({ level: "read_only" });
  expect((await call(g, { kind: "refuse" }, "file_read")).success).toBe(true);
  expect((await call(g, { kind: "refuse" }, "lookup")).success).toBe(true);
  const refused = await call(g, { kind: "yes" }, "echo_upper");
  expect(refused.error).toContain('[autonomy] level = "read_only"');
  expect(ran).toEqual(["file_read", "lookup"]);
  const [last] = storage.audit.list({ limit: 1 });
  expect(last).toMatchObject({ tool: "echo_upper", risk: "unknown", decision: "deny", decided_by: "policy", outcome: "not_run", sender: "7" });
});

test("supervised: no one to ask is a refusal naming the setting and told to the caller; --yes runs it", async () => {
  const { gate: g } = gate({});
  const told: string[] = [];
  const refused = await call(g, { kind: "refuse", told: (m) => told.push(m) }, "shell");
  expect(refused.error).toContain('needs the owner\'s approval ([autonomy] level = "supervised")');
  expect(told).toEqual([refused.error!]);
  expect((await call(g, { kind: "yes" }, "shell")).success).toBe(true);
  expect(storage.audit.list({ limit: 5 }).map((e) => [e.decision, e.decided_by])).toEqual([["allow", "--yes"], ["deny", "no-approver"]]);
});

test("an unknown tool is not asked about: the registry refuses it", async () => {
  const { gate: g } = gate({});
  const result = await call(g, { kind: "refuse" }, "nope");
  expect(result.error).toContain('unknown tool "nope"');
  expect(storage.audit.list({ limit: 1 })[0]).toMatchObject({ tool: "nope", decision: "allow", outcome: "error" });
});

test("allow_session: the next call of the tool in the session runs without asking", async () => {
  const { gate: g, broker } = gate({});
  const route: ApprovalRoute = { kind: "ask", notify: (p) => void broker.decide(p.id, "allow_session", "api", null) };
  expect((await call(g, route, "shell")).success).toBe(true);
  expect((await call(g, { kind: "refuse" }, "shell")).success).toBe(true);
  expect(storage.audit.list({ limit: 5 }).map((e) => [e.decision, e.decided_by])).toEqual([["allow_session", "session"], ["allow_session", "api"]]);
});

test(`the audit preview keeps ${APPROVAL_PREVIEW_MAX_CHARS} characters whole and cuts one more`, async () => {
  const { gate: g } = gate({ level: "full" });
  const args = (n: number) => JSON.stringify({ t: "x".repeat(n - 8) });
  expect(args(APPROVAL_PREVIEW_MAX_CHARS).length).toBe(APPROVAL_PREVIEW_MAX_CHARS);
  await call(g, { kind: "refuse" }, "shell", args(APPROVAL_PREVIEW_MAX_CHARS));
  await call(g, { kind: "refuse" }, "shell", args(APPROVAL_PREVIEW_MAX_CHARS + 1));
  const [cut, whole] = storage.audit.list({ limit: 2 });
  expect(whole!.args_preview).toBe(args(APPROVAL_PREVIEW_MAX_CHARS));
  expect(cut!.args_preview).toBe(`${args(APPROVAL_PREVIEW_MAX_CHARS + 1).slice(0, APPROVAL_PREVIEW_MAX_CHARS)}…`);
  expect(cut!.args_sha256).not.toBe(whole!.args_sha256);
});

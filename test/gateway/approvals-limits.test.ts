/**
 * An answer to an approval (POST /api/approvals/:id) at its limits, the reason's characters and the body's bytes (the
 * id is unknown: an answer the limits let through is a 404, one they stop a 400 or a 413), and the audit log's page size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { APPROVAL_REASON_MAX_CHARS, AUDIT_LIST_MAX } from "../../src/agent/approvals/limits.ts";
import { openAgentHost, type AgentHost } from "../../src/agent/host.ts";
import { approvalRoutes, DECISION_MAX_BODY_BYTES } from "../../src/gateway/routes/approvals.ts";
import { gatewayWithMounts } from "../helpers/gateway-app.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

let host: AgentHost;
let cleanup = () => {};
beforeAll(async () => {
  const ws = tempWorkspace('default_provider = "offline"\n', { prefix: "prx-approvals-limits-" });
  cleanup = ws.cleanup;
  host = await openAgentHost({ workspace: ws.dir, env: {} });
});
afterAll(async () => {
  await host.close();
  cleanup();
});

const app = () => gatewayWithMounts(host, [approvalRoutes({ broker: host.approvals, audit: () => host.storage.audit })]).app;

async function answer(text: string): Promise<number> {
  const response = await app().handle(new Request("http://local/api/approvals/apr_unknown", { method: "POST", headers: { "content-type": "application/json" }, body: text }));
  return response.status;
}

// "€" is one UTF-16 unit (a character to the schema) and three bytes of UTF-8
const reason = (chars: number) => "€".repeat(chars);

describe("an approval's answer", () => {
  test("a reason of APPROVAL_REASON_MAX_CHARS is read (404: no such approval); one character more is refused (400)", async () => {
    expect(await answer(JSON.stringify({ decision: "deny", reason: reason(APPROVAL_REASON_MAX_CHARS) }))).toBe(404);
    expect(await answer(JSON.stringify({ decision: "deny", reason: reason(APPROVAL_REASON_MAX_CHARS + 1) }))).toBe(400);
  });

  test("a body of DECISION_MAX_BODY_BYTES is read; one byte more is refused (413)", async () => {
    const json = JSON.stringify({ decision: "deny", reason: reason(APPROVAL_REASON_MAX_CHARS) });
    // JSON allows whitespace after the value: the padding makes the body exactly the size wanted
    const sized = (bytes: number) => json + " ".repeat(bytes - Buffer.byteLength(json));
    expect(Buffer.byteLength(sized(DECISION_MAX_BODY_BYTES))).toBe(DECISION_MAX_BODY_BYTES);
    expect(await answer(sized(DECISION_MAX_BODY_BYTES))).toBe(404);
    expect(await answer(sized(DECISION_MAX_BODY_BYTES + 1))).toBe(413);
  });
});

describe("the audit log's page", () => {
  test("?limit=AUDIT_LIST_MAX is answered; one more is refused (400)", async () => {
    const audit = (limit: number) => app().handle(new Request(`http://local/api/audit?limit=${limit}`));
    const answered = await audit(AUDIT_LIST_MAX);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ entries: [] });
    expect((await audit(AUDIT_LIST_MAX + 1)).status).toBe(400);
  });
});

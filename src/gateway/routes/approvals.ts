import { z } from "zod";
import type { ApprovalBroker } from "../../agent/approvals/broker.ts";
import { APPROVAL_REASON_MAX_CHARS, APPROVALS_LIST_MAX, AUDIT_LIST_DEFAULT, AUDIT_LIST_MAX } from "../../agent/approvals/limits.ts";
import type { PendingApproval } from "../../agent/approvals/types.ts";
import { PrxError } from "../../core/errors.ts";
import type { AuditEntry, AuditStore } from "../../storage/types.ts";
import { jsonParser } from "../body.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import { routeSchema } from "../route-schema.ts";
import type { GatewayMount } from "../types.ts";

export const ApprovalSchema = z.object({
  id: z.string(),
  code: z.string().describe("four digits: the answer typed in a chat, `yes 4821`"),
  tool: z.string(),
  risk: z.string().describe("read | write | execute | network | message | unknown"),
  arguments_preview: z.string().describe("the call's arguments, bounded"),
  session_id: z.string(),
  channel: z.string(),
  expires_at: z.string().describe("ISO time; no answer by then is a denial"),
});
const ApprovalListSchema = z.object({ approvals: z.array(ApprovalSchema) });
const DecisionBodySchema = z.strictObject({
  decision: z.enum(["allow", "allow_session", "deny"]).describe("allow_session: this tool runs without asking for the rest of the session"),
  reason: z.string().max(APPROVAL_REASON_MAX_CHARS).optional().describe("told to the model with a denial"),
});
const DecidedSchema = z.object({ id: z.string(), tool: z.string(), state: z.string(), decided_by: z.string() });
export const AuditEntrySchema = z.object({
  id: z.number(),
  at: z.string(),
  session_id: z.string(),
  channel: z.string(),
  sender: z.string().nullable(),
  tool: z.string(),
  risk: z.string(),
  args_sha256: z.string(),
  arguments_preview: z.string(),
  decision: z.string().describe("allow | allow_session | deny | timeout"),
  decided_by: z.string().describe("policy, session, api, chat, owner:<sender>, --yes, no-approver, timeout, cancelled"),
  outcome: z.string().describe("ok | error | not_run"),
  error: z.string().nullable(),
  duration_ms: z.number(),
});
const AuditListSchema = z.object({ entries: z.array(AuditEntrySchema) });
const AuditQuerySchema = z.strictObject({
  since: z.iso.datetime({ offset: true }).optional().describe("ISO time: entries at or after it"),
  tool: z.string().min(1).max(128).optional(),
  limit: z.coerce.number().int().min(1).max(AUDIT_LIST_MAX).default(AUDIT_LIST_DEFAULT),
});
/** Largest body of a decision (a reason of at most APPROVAL_REASON_MAX_CHARS characters, as UTF-8, and the JSON around it). */
export const DECISION_MAX_BODY_BYTES = 4 * APPROVAL_REASON_MAX_CHARS + 256;

export type ApprovalWire = z.infer<typeof ApprovalSchema>;
export type AuditEntryWire = z.infer<typeof AuditEntrySchema>;

export function approvalWire(pending: PendingApproval): ApprovalWire {
  return {
    id: pending.id,
    code: pending.code,
    tool: pending.tool,
    risk: pending.risk,
    arguments_preview: pending.preview,
    session_id: pending.sessionId,
    channel: pending.channel,
    expires_at: new Date(pending.expiresAt).toISOString(),
  };
}

export function auditWire(entry: AuditEntry & { id: number }): AuditEntryWire {
  const { args_preview, at, ...rest } = entry;
  return { ...rest, at: new Date(Number(at)).toISOString(), arguments_preview: args_preview, duration_ms: Number(entry.duration_ms) };
}

/** What the approval routes need: the host's broker and the audit store. */
export interface ApprovalsApi {
  broker: ApprovalBroker;
  audit: () => AuditStore;
}

/** `/api/approvals` (list, answer) and `/api/audit` (the tool calls and their decisions), behind auth. */
export function approvalRoutes(api: ApprovalsApi): GatewayMount {
  return (app: GatewayElysia) =>
    app
      .get("/api/approvals", async () => jsonResponse({ approvals: (await api.broker.pending(APPROVALS_LIST_MAX)).map(approvalWire) }), {
        detail: doc({
          summary: "Tool calls waiting for the owner's approval (of every replica sharing the storage), oldest first",
          tags: ["approvals"],
          responses: { 200: ApprovalListSchema },
        }),
      })
      .post(
        "/api/approvals/:id",
        async ({ params, body }) => {
          const row = await api.broker.decide(params.id, body.decision, "api", body.reason ?? null);
          return jsonResponse({ id: row.id, tool: row.tool, state: row.state, decided_by: row.decided_by ?? "api" });
        },
        {
          body: routeSchema(DecisionBodySchema),
          parse: jsonParser(DECISION_MAX_BODY_BYTES),
          detail: doc({
            summary: "Answer a pending approval: the waiting tool call runs (allow, allow_session) or is refused (deny)",
            tags: ["approvals"],
            responses: { 200: DecidedSchema },
            errors: [400, 404, 409],
          }),
        },
      )
      .get(
        "/api/audit",
        async ({ request }) => {
          const parsed = AuditQuerySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            throw new PrxError("BAD_REQUEST", `invalid audit query: ${issue?.path.join(".")}: ${issue?.message}`, {
              status: 400,
              hint: `use ?since=<ISO time>, ?tool=<name>, ?limit=1..${AUDIT_LIST_MAX}`,
            });
          }
          const { since, tool, limit } = parsed.data;
          const entries = await api.audit().list({ ...(since ? { since: Date.parse(since) } : {}), ...(tool ? { tool } : {}), limit });
          return jsonResponse({ entries: entries.map(auditWire) });
        },
        {
          detail: doc({
            summary: "The audit log of tool calls, newest first: ?since=<ISO time>, ?tool=<name>, ?limit (default 100)",
            tags: ["approvals"],
            responses: { 200: AuditListSchema },
            errors: [400],
          }),
        },
      );
}

import type { Database } from "bun:sqlite";
import type { ApprovalRow, ApprovalState, ApprovalStore, AuditEntry, AuditQuery, AuditStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";
import { statement } from "./statements.ts";

/** Tool calls waiting for the owner, in the workspace file: every process of the workspace sees them. */
export class SqliteApprovalStore implements ApprovalStore {
  constructor(private readonly db: Database) {
    migrateSqlite(db);
  }

  create(row: ApprovalRow): void {
    this.db
      .query(
        "INSERT INTO tool_approvals (id, code, session_id, channel, chat_key, sender, tool, risk, args_sha256, args_preview, state, " +
          "decided_by, reason, created_at, expires_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        row.id, row.code, row.session_id, row.channel, row.chat_key, row.sender, row.tool, row.risk, row.args_sha256,
        row.args_preview, row.state, row.decided_by, row.reason, row.created_at, row.expires_at, row.decided_at,
      );
  }

  get(id: string): ApprovalRow | null {
    return this.db.query<ApprovalRow, [string]>("SELECT * FROM tool_approvals WHERE id = ?").get(id);
  }

  pending(now: number, limit: number): ApprovalRow[] {
    return this.db
      .query<ApprovalRow, [number, number]>(
        "SELECT * FROM tool_approvals WHERE state = 'pending' AND expires_at > ? ORDER BY created_at LIMIT ?",
      )
      .all(now, limit);
  }

  byCode(channel: string, chatKey: string, code: string, now: number): ApprovalRow | null {
    return this.db
      .query<ApprovalRow, [string, string, string, number]>(
        "SELECT * FROM tool_approvals WHERE channel = ? AND chat_key = ? AND code = ? AND state = 'pending' AND expires_at > ? " +
          "ORDER BY created_at DESC LIMIT 1",
      )
      .get(channel, chatKey, code, now);
  }

  decide(id: string, state: Exclude<ApprovalState, "pending">, by: string, reason: string | null, at: number): ApprovalRow | null {
    return this.db
      .query<ApprovalRow, [string, string, string | null, number, string]>(
        "UPDATE tool_approvals SET state = ?, decided_by = ?, reason = ?, decided_at = ? WHERE id = ? AND state = 'pending' RETURNING *",
      )
      .get(state, by, reason, at, id);
  }

  allowedForSession(sessionId: string, tool: string): boolean {
    return statement(this.db, "SELECT 1 FROM tool_approvals WHERE session_id = ? AND tool = ? AND state = 'allow_session' LIMIT 1").get(sessionId, tool) !== null;
  }
}

const AUDIT_INSERT =
  "INSERT INTO tool_audit (at, session_id, channel, sender, tool, risk, args_sha256, args_preview, decision, decided_by, " +
  "outcome, error, duration_ms, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/** The audit log of tool calls in the workspace file. */
export class SqliteAuditStore implements AuditStore {
  constructor(private readonly db: Database) {
    migrateSqlite(db);
  }

  append(e: AuditEntry): void {
    statement(this.db, AUDIT_INSERT).run(
      e.at, e.session_id, e.channel, e.sender, e.tool, e.risk, e.args_sha256, e.args_preview, e.decision, e.decided_by,
      e.outcome, e.error, Math.round(e.duration_ms), e.agent ?? "main",
    );
  }

  list(query: AuditQuery): Array<AuditEntry & { id: number }> {
    return this.db
      .query<AuditEntry & { id: number }, [number, string | null, string | null, number]>(
        "SELECT * FROM tool_audit WHERE at >= ? AND (? IS NULL OR tool = ?) ORDER BY id DESC LIMIT ?",
      )
      .all(query.since ?? 0, query.tool ?? null, query.tool ?? null, query.limit);
  }
}

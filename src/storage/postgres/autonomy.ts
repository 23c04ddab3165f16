import type { SQL } from "bun";
import type { ApprovalRow, ApprovalState, ApprovalStore, AuditEntry, AuditQuery, AuditStore, StoreWatch } from "../types.ts";
import { pg } from "./connect.ts";
import { pgChannel } from "./notify.ts";

/**
 * Tool calls waiting for the owner, shared by replicas: any replica lists and decides them. Each decision is told
 * with the approval's id on the schema's NOTIFY channel, so a call waiting in another process wakes at once (watch).
 */
export class PgApprovalStore implements ApprovalStore {
  private readonly channel: string;

  constructor(
    private readonly sql: SQL,
    schema: string,
  ) {
    this.channel = pgChannel("approvals", schema);
  }

  async watch(decided: (id: string | null) => void): Promise<StoreWatch> {
    const subscription = await pg("approvals listen", () =>
      this.sql.listen(
        this.channel,
        (id) => decided(id),
        () => decided(null),
      ),
    );
    return { close: () => subscription.unlisten() };
  }

  create(row: ApprovalRow): Promise<void> {
    return pg("approval create", async () => {
      await this.sql.unsafe(
        "INSERT INTO tool_approvals (id, code, session_id, channel, chat_key, sender, tool, risk, args_sha256, args_preview, state, " +
          "decided_by, reason, created_at, expires_at, decided_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        [
          row.id, row.code, row.session_id, row.channel, row.chat_key, row.sender, row.tool, row.risk, row.args_sha256,
          row.args_preview, row.state, row.decided_by, row.reason, row.created_at, row.expires_at, row.decided_at,
        ],
      );
    });
  }

  get(id: string): Promise<ApprovalRow | null> {
    return pg("approval read", async () => ((await this.sql.unsafe("SELECT * FROM tool_approvals WHERE id = $1", [id]))[0] as ApprovalRow) ?? null);
  }

  pending(now: number, limit: number): Promise<ApprovalRow[]> {
    return pg("approval list", async () =>
      (await this.sql.unsafe(
        "SELECT * FROM tool_approvals WHERE state = 'pending' AND expires_at > $1 ORDER BY created_at LIMIT $2",
        [now, limit],
      )) as ApprovalRow[],
    );
  }

  byCode(channel: string, chatKey: string, code: string, now: number): Promise<ApprovalRow | null> {
    return pg("approval by code", async () =>
      ((
        await this.sql.unsafe(
          "SELECT * FROM tool_approvals WHERE channel = $1 AND chat_key = $2 AND code = $3 AND state = 'pending' AND expires_at > $4 " +
            "ORDER BY created_at DESC LIMIT 1",
          [channel, chatKey, code, now],
        )
      )[0] as ApprovalRow) ?? null,
    );
  }

  decide(id: string, state: Exclude<ApprovalState, "pending">, by: string, reason: string | null, at: number): Promise<ApprovalRow | null> {
    return pg("approval decide", async () => {
      const row =
        ((
          await this.sql.unsafe(
            "UPDATE tool_approvals SET state = $1, decided_by = $2, reason = $3, decided_at = $4 WHERE id = $5 AND state = 'pending' RETURNING *",
            [state, by, reason, at, id],
          )
        )[0] as ApprovalRow) ?? null;
      if (row) await this.sql.unsafe("SELECT pg_notify($1, $2)", [this.channel, id]);
      return row;
    });
  }

  allowedForSession(sessionId: string, tool: string): Promise<boolean> {
    return pg("approval session grant", async () =>
      (
        await this.sql.unsafe("SELECT 1 FROM tool_approvals WHERE session_id = $1 AND tool = $2 AND state = 'allow_session' LIMIT 1", [
          sessionId,
          tool,
        ])
      ).length > 0,
    );
  }
}

/** The audit log of tool calls, shared by replicas. */
export class PgAuditStore implements AuditStore {
  constructor(private readonly sql: SQL) {}

  append(e: AuditEntry): Promise<void> {
    return pg("audit append", async () => {
      await this.sql.unsafe(
        "INSERT INTO tool_audit (at, session_id, channel, sender, tool, risk, args_sha256, args_preview, decision, decided_by, " +
          "outcome, error, duration_ms, agent) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        [e.at, e.session_id, e.channel, e.sender, e.tool, e.risk, e.args_sha256, e.args_preview, e.decision, e.decided_by, e.outcome, e.error, e.duration_ms, e.agent ?? "main"],
      );
    });
  }

  list(query: AuditQuery): Promise<Array<AuditEntry & { id: number }>> {
    return pg("audit list", async () =>
      ((await this.sql.unsafe(
        "SELECT * FROM tool_audit WHERE at >= $1 AND ($2::text IS NULL OR tool = $2) ORDER BY id DESC LIMIT $3",
        [query.since ?? 0, query.tool ?? null, query.limit],
      )) as Array<AuditEntry & { id: number | string }>).map((row) => ({ ...row, id: Number(row.id) })),
    );
  }
}

import type { ReservedSQL } from "bun";
import type { HistoryRow, SummaryRow } from "../session-history.ts";

/** The last `limit` messages of a session ($1), oldest first. */
export const RECENT_MESSAGES =
  "SELECT * FROM (SELECT * FROM session_messages WHERE session_id = $1 ORDER BY seq DESC LIMIT $2) t ORDER BY seq ASC";

/** The columns of a message a turn's history reads (HistoryRow): the session id, times and usage are not decoded. */
const HISTORY_COLUMNS = "seq, role, content, tool_calls, tool_call_id, name, media";

/** The last `limit` messages ($2) of a session ($1) after its newest summary, oldest first: a turn's history. */
export const HISTORY_MESSAGES = `SELECT ${HISTORY_COLUMNS} FROM (SELECT ${HISTORY_COLUMNS} FROM session_messages WHERE session_id = $1
    AND seq > COALESCE((SELECT MAX(through_seq) FROM session_summaries WHERE session_id = $1), 0)
    ORDER BY seq DESC LIMIT $2) t ORDER BY seq ASC`;

/** The newest summary of a session ($1). */
export const NEWEST_SUMMARY = "SELECT * FROM session_summaries WHERE session_id = $1 ORDER BY through_seq DESC LIMIT 1";

/**
 * HISTORY_MESSAGES and NEWEST_SUMMARY in one statement (one snapshot): the newest summary first, as a row of its own
 * (summary_* columns, the message's null), then the messages (HISTORY_COLUMNS, the summary's null), oldest first.
 */
export const HISTORY_AND_SUMMARY = `WITH s AS (${NEWEST_SUMMARY}),
    h AS (SELECT ${HISTORY_COLUMNS} FROM session_messages WHERE session_id = $1 AND seq > COALESCE((SELECT through_seq FROM s), 0)
      ORDER BY seq DESC LIMIT $2)
  SELECT h.*, NULL::integer AS summary_from_seq, NULL::integer AS summary_through_seq, NULL::text AS summary_content,
    NULL::text AS summary_model, NULL::text AS summary_created_at FROM h
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, s.from_seq, s.through_seq, s.content, s.model, s.created_at FROM s
  ORDER BY 1 ASC NULLS FIRST`;

type HistoryAndSummaryRow = { [K in keyof HistoryRow]: HistoryRow[K] | null } & { seq: number | null } & {
  [K in keyof SummaryRow as `summary_${K}`]: SummaryRow[K] | null;
};

/** A session's history and its newest summary (null: none), from HISTORY_AND_SUMMARY's rows. */
function splitHistoryAndSummary(rows: HistoryAndSummaryRow[]): { rows: HistoryRow[]; summary: SummaryRow | null } {
  const first = rows[0];
  const summary =
    first && first.summary_through_seq !== null
      ? {
          from_seq: first.summary_from_seq!,
          through_seq: first.summary_through_seq,
          content: first.summary_content!,
          model: first.summary_model!,
          created_at: first.summary_created_at!,
        }
      : null;
  return { rows: (summary ? rows.slice(1) : rows) as HistoryRow[], summary };
}

interface Held {
  limit: number;
  /** null once the turn's history call took them. */
  rows: HistoryRow[] | null;
  /** undefined once the turn's summary call took it. */
  summary: SummaryRow | null | undefined;
}

/**
 * A turn's history and summary read in the same round trip as its session lease: the lease sends their query right behind
 * its lock on the lease's connection (pipelined; PostgreSQL runs them in order, each in its own snapshot, so the read
 * sees everything committed before the lock was taken). The turn's first `history` call takes the rows, and its first
 * `summary` call the summary, instead of querying. They are kept only while the lease is held, the rows only for the
 * limit asked, and are dropped by any write to the session, so a read is never older than the session's last write.
 * While the lease is held, the session's own writes go on the lease's connection too (`connection`): the turn's
 * statements skip the pool's checkout and never wait for a free pooled connection.
 */
export class HistoryPrefetch {
  /** The limit of the last history read (a turn asks for config's max_history_messages each time). */
  private limit: number | null = null;
  private readonly held = new Map<string, Held>();
  private readonly leased = new Map<string, ReservedSQL>();

  /**
   * Send the read on `conn` now (queries are lazy: this one is started, so it goes out behind the lock query started
   * just before), when a history read has been seen in this process; null when nothing was sent.
   */
  send(conn: ReservedSQL, sessionId: string): { limit: number; rows: Promise<HistoryAndSummaryRow[]> } | null {
    const limit = this.limit;
    if (limit === null) return null;
    const rows = conn.unsafe(HISTORY_AND_SUMMARY, [sessionId, limit]).execute() as Promise<HistoryAndSummaryRow[]>;
    return { limit, rows };
  }

  /** Rows read under the lease of `sessionId`, for its first history and summary calls. */
  keep(sessionId: string, limit: number, read: HistoryAndSummaryRow[]): void {
    const { rows, summary } = splitHistoryAndSummary(read);
    this.held.set(sessionId, { limit, rows, summary });
  }

  /** The kept rows for this read (once), or null: the caller queries. Records the limit for the next leases. */
  take(sessionId: string, limit: number): HistoryRow[] | null {
    this.limit = limit;
    const kept = this.held.get(sessionId);
    if (!kept || kept.rows === null) return null;
    const rows = kept.rows;
    kept.rows = null;
    if (kept.summary === undefined) this.held.delete(sessionId);
    return kept.limit === limit ? rows : null;
  }

  /** The kept newest summary (once; null: the session has none), or undefined: the caller queries. */
  takeSummary(sessionId: string): SummaryRow | null | undefined {
    const kept = this.held.get(sessionId);
    if (!kept || kept.summary === undefined) return undefined;
    const summary = kept.summary;
    kept.summary = undefined;
    if (kept.rows === null) this.held.delete(sessionId);
    return summary;
  }

  /** The session was written (or its lease ended): kept rows are stale. */
  drop(sessionId: string): void {
    if (this.held.size > 0) this.held.delete(sessionId);
  }

  /** The lease of `sessionId` is held on `conn` (until `end`). */
  lease(sessionId: string, conn: ReservedSQL): void {
    this.leased.set(sessionId, conn);
  }

  /** The connection holding the lease of `sessionId`, for the session's writes; undefined when not held here. */
  connection(sessionId: string): ReservedSQL | undefined {
    return this.leased.size > 0 ? this.leased.get(sessionId) : undefined;
  }

  /** The lease of `sessionId` ends: its rows and its connection are no longer the session's. */
  end(sessionId: string): void {
    this.drop(sessionId);
    this.leased.delete(sessionId);
  }
}

import type { ReservedSQL } from "bun";
import type { MessageRow } from "../session-history.ts";

/** The last `limit` messages of a session ($1), oldest first. */
export const RECENT_MESSAGES =
  "SELECT * FROM (SELECT * FROM session_messages WHERE session_id = $1 ORDER BY seq DESC LIMIT $2) t ORDER BY seq ASC";

/** The last `limit` messages ($2) of a session ($1) after its newest summary, oldest first: a turn's history. */
export const HISTORY_MESSAGES = `SELECT * FROM (SELECT * FROM session_messages WHERE session_id = $1
    AND seq > COALESCE((SELECT MAX(through_seq) FROM session_summaries WHERE session_id = $1), 0)
    ORDER BY seq DESC LIMIT $2) t ORDER BY seq ASC`;

/**
 * A turn's history read in the same round trip as its session lease: the lease sends the history query right behind
 * its lock on the lease's connection (pipelined; PostgreSQL runs them in order, each in its own snapshot, so the read
 * sees everything committed before the lock was taken). The turn's first `history` call takes the rows instead of
 * querying. Rows are kept only while the lease is held, only for the limit asked, and are dropped by any write to the
 * session, so a read is never older than the session's last write.
 * While the lease is held, the session's own writes go on the lease's connection too (`connection`): the turn's
 * statements skip the pool's checkout and never wait for a free pooled connection.
 */
export class HistoryPrefetch {
  /** The limit of the last history read (a turn asks for config's max_history_messages each time). */
  private limit: number | null = null;
  private readonly held = new Map<string, { limit: number; rows: MessageRow[] }>();
  private readonly leased = new Map<string, ReservedSQL>();

  /**
   * Send the read on `conn` now (queries are lazy: this one is started, so it goes out behind the lock query started
   * just before), when a history read has been seen in this process; null when nothing was sent.
   */
  send(conn: ReservedSQL, sessionId: string): { limit: number; rows: Promise<MessageRow[]> } | null {
    const limit = this.limit;
    if (limit === null) return null;
    const rows = conn.unsafe(HISTORY_MESSAGES, [sessionId, limit]).execute() as Promise<MessageRow[]>;
    return { limit, rows };
  }

  /** Rows read under the lease of `sessionId`, for its first history call. */
  keep(sessionId: string, limit: number, rows: MessageRow[]): void {
    this.held.set(sessionId, { limit, rows });
  }

  /** The kept rows for this read (once), or null: the caller queries. Records the limit for the next leases. */
  take(sessionId: string, limit: number): MessageRow[] | null {
    this.limit = limit;
    const kept = this.held.get(sessionId);
    if (!kept) return null;
    this.held.delete(sessionId);
    return kept.limit === limit ? kept.rows : null;
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

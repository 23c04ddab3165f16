import type { ReservedSQL } from "bun";
import type { HistoryRow, SummaryRow } from "../session-history.ts";
import { PgMemoryPresence } from "./memory-presence.ts";

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
 * A row of prx_turn_start (migration-turn-start.ts) once the lock was taken: the first carries the newest summary and
 * whether memory holds entries, the others a message each.
 */
export type HistoryAndSummaryRow = { [K in keyof HistoryRow]: HistoryRow[K] | null } & { seq: number | null } & {
  [K in keyof SummaryRow as `summary_${K}`]: SummaryRow[K] | null;
} & { memories_present: boolean | null };

/** A session's history and its newest summary (null: none), from prx_turn_start's rows (the first one's is the summary). */
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
  return { rows: rows.slice(1) as HistoryRow[], summary };
}

interface Held {
  limit: number;
  /** null once the turn's history call took them. */
  rows: HistoryRow[] | null;
  /** undefined once the turn's summary call took it. */
  summary: SummaryRow | null | undefined;
}

/**
 * A turn's history and summary read in the same statement as its session lease's lock (prx_turn_start,
 * migration-turn-start.ts: the read in its own snapshot after the lock, so it sees everything committed before the
 * lock was taken), and whether memory held entries then (`memories`, memory-presence.ts). The turn's first `history`
 * call takes the rows, and its first `summary` call the summary, instead of querying. They are kept only while the lease is held, the rows only for the
 * limit asked, and are dropped by any write to the session, so a read is never older than the session's last write.
 * While the lease is held, the session's own writes go on the lease's connection too (`connection`): the turn's
 * statements skip the pool's checkout and never wait for a free pooled connection.
 */
export class HistoryPrefetch {
  /** The limit of the last history read (a turn asks for config's max_history_messages each time). */
  private limit: number | null = null;
  private readonly held = new Map<string, Held>();
  private readonly leased = new Map<string, ReservedSQL>();
  readonly memories = new PgMemoryPresence();

  /** The limit to read a lease's history with (null: no history read seen in this process yet, nothing to read). */
  get readLimit(): number | null {
    return this.limit;
  }

  /**
   * Rows read under the lease of `sessionId`, for its first history and summary calls; `generation` is the memory
   * presence's when the read was sent.
   */
  keep(sessionId: string, limit: number, read: HistoryAndSummaryRow[], generation: number): void {
    const { rows, summary } = splitHistoryAndSummary(read);
    this.held.set(sessionId, { limit, rows, summary });
    this.memories.seen(sessionId, read[0]?.memories_present ?? null, generation);
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
    this.memories.drop(sessionId);
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

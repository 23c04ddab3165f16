import type { ReservedSQL, SQL } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { SessionLeases } from "../types.ts";
import type { HistoryAndSummaryRow, HistoryPrefetch } from "./history-prefetch.ts";
import type { TurnWrites } from "./turn-writes.ts";

const log = createLogger("storage.leases");

const TRY_LOCK = "SELECT pg_try_advisory_lock(hashtext('prx.session'), hashtext($1)) AS got";
/**
 * The wait for a lock another connection holds, with its bound (lock_timeout, set for the connection as SET would) in
 * the same statement: one round trip. The set_config is read from first, so it applies before the wait starts.
 */
const LOCK_WAIT =
  "WITH bound AS MATERIALIZED (SELECT set_config('lock_timeout', $2, false)) SELECT pg_advisory_lock(hashtext('prx.session'), hashtext($1)) FROM bound";
/** The lock, the turn's history and whether memory holds entries in one statement (migration-turn-start.ts). */
const LEASE_START = "SELECT * FROM prx_turn_start($1, $2, $3)";

type LeaseStartRow = HistoryAndSummaryRow & { got: boolean };

/**
 * One turn at a time per session across replicas: a session-level advisory lock (keyed by the session id's hash),
 * taken on a connection reserved for the turn and released when it ends. PostgreSQL waits for the lock itself
 * (no polling), bounded by `lock_timeout`; a replica that dies mid-turn loses its connection and with it the lock,
 * so the session continues on another replica at once. The turn's history is read in the lock's statement
 * (history-prefetch.ts), and the session's appends during the turn are written by the statement that releases the
 * lock (turn-writes.ts): a turn is two round trips on its lease's connection.
 */
export class PgSessionLeases implements SessionLeases {
  constructor(
    /** A pool of its own (SESSION_LEASE_MAX_CONNECTIONS), so held leases never starve the stores' queries. */
    private readonly sql: SQL,
    private readonly waitMs: number,
    private readonly prefetch?: HistoryPrefetch,
    /** The session's appends during the lease, written by the statement that releases it (turn-writes.ts). */
    private readonly writes?: TurnWrites,
  ) {}

  async hold<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    let conn;
    try {
      conn = await this.sql.reserve();
    } catch (cause) {
      throw new PrxError("STORAGE", `cannot reserve a connection for the lease of session ${sessionId}: ${errorMessage(cause)}`, {
        cause,
        status: 503,
      });
    }
    // the history is read with the lock once this process has seen a turn's history read (and its limit)
    const limit = this.prefetch?.readLimit ?? null;
    const memories = this.prefetch?.memories;
    const generation = memories?.generation ?? 0;
    let read: HistoryAndSummaryRow[] | null = null;
    /** While prx_turn_start runs: a failure may come after it took the lock. */
    let starting = false;
    try {
      // Usually free: one statement, the lock and the history read. Otherwise wait for it server-side (no polling),
      // bounded by lock_timeout.
      let got: boolean;
      if (limit === null) got = (await conn.unsafe(TRY_LOCK, [sessionId]))[0].got;
      else {
        starting = true;
        const rows = (await conn.unsafe(LEASE_START, [sessionId, limit, memories!.asked])) as LeaseStartRow[];
        starting = false;
        got = rows[0]!.got;
        if (got) read = rows;
      }
      if (!got) await conn.unsafe(LOCK_WAIT, [sessionId, String(Math.max(1, Math.floor(this.waitMs)))]);
    } catch (cause) {
      // prx_turn_start may have failed after taking the lock: closing the connection drops it with it
      if (!starting) conn.release();
      else conn.close().catch((closing: unknown) => log.warn("lease connection close failed", { error: errorMessage(closing) }));
      const timedOut = /lock timeout|canceling statement/i.test(errorMessage(cause));
      throw new PrxError(
        timedOut ? "STORAGE_LEASE" : "STORAGE",
        timedOut
          ? `session ${sessionId} is busy on another replica for more than ${this.waitMs} ms`
          : `cannot take the lease of session ${sessionId}: ${errorMessage(cause)}`,
        { cause, status: 503, hint: timedOut ? "retry when the running turn has finished" : undefined },
      );
    }
    this.prefetch?.lease(sessionId, conn);
    if (read) this.prefetch!.keep(sessionId, limit!, read, generation);
    let result: T;
    try {
      result = await task();
    } catch (error) {
      this.prefetch?.end(sessionId);
      // what the turn appended before it failed is written all the same
      if (this.writes?.owes(sessionId)) {
        await this.end(sessionId, conn).catch((ending: unknown) =>
          log.warn("a failed turn's messages were not stored", { session: sessionId, error: errorMessage(ending) }),
        );
      } else this.unlock(sessionId, conn);
      throw error;
    }
    this.prefetch?.end(sessionId);
    // The turn's messages are stored before its answer goes out, with the unlock in the same statement.
    if (this.writes?.owes(sessionId)) await this.end(sessionId, conn);
    else this.unlock(sessionId, conn);
    return result;
  }

  /** The lease's end with the session's kept appends: written, committed and unlocked in one statement. */
  private async end(sessionId: string, conn: ReservedSQL): Promise<void> {
    try {
      await this.writes!.write(sessionId, conn, true);
    } catch (error) {
      this.drop(sessionId, conn, error);
      throw error;
    }
    conn.release();
  }

  /**
   * The lease's end with nothing to write. The turn's answer does not wait for the unlock: the next turn of the session
   * (here or on another replica) waits for it in PostgreSQL instead.
   */
  private unlock(sessionId: string, conn: ReservedSQL): void {
    conn.unsafe("SELECT pg_advisory_unlock(hashtext('prx.session'), hashtext($1))", [sessionId]).then(
      () => conn.release(),
      (error: unknown) => this.drop(sessionId, conn, error),
    );
  }

  /** The connection is broken or its statement failed before the unlock: closing it drops the lock with it. */
  private drop(sessionId: string, conn: ReservedSQL, error: unknown): void {
    log.warn("session lease not released cleanly; closing its connection", { session: sessionId, error: errorMessage(error) });
    conn.close().catch((closing: unknown) => log.warn("lease connection close failed", { error: errorMessage(closing) }));
  }

  async close(): Promise<void> {
    await this.sql.close();
  }
}

import type { ReservedSQL, SQL } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { SessionLeases } from "../types.ts";
import type { HistoryAndSummaryRow, HistoryPrefetch } from "./history-prefetch.ts";
import { LeaseConnections } from "./lease-connections.ts";
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

/** A lease's start: the history read with its lock (null: none), the limit it was read with, the presence's generation. */
interface Started {
  read: HistoryAndSummaryRow[] | null;
  limit: number | null;
  generation: number;
}

/**
 * Whether a statement failed because its connection is gone: closed (the driver's CONNECTION_CLOSED), ended by the
 * server (a FATAL error: its backend exited, as a restart or pg_terminate_backend makes it), or broken (class 08).
 */
function connectionGone(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; severity?: unknown } | null;
  return /CONNECTION_CLOSED/.test(String(e?.code ?? "")) || e?.severity === "FATAL" || String(e?.errno ?? "").startsWith("08");
}

/**
 * One turn at a time per session across replicas: a session-level advisory lock (keyed by the session id's hash),
 * taken on a connection of the lease pool (kept between turns, lease-connections.ts) and released when it ends.
 * PostgreSQL waits for the lock itself (no polling), bounded by `lock_timeout`; a replica that dies mid-turn loses
 * its connection and with it the lock, so the session continues on another replica at once. The turn's history is
 * read in the lock's statement (history-prefetch.ts), and the session's appends during the turn are written by the
 * statement that releases the lock (turn-writes.ts): a turn is two round trips on its lease's connection.
 */
export class PgSessionLeases implements SessionLeases {
  private readonly connections: LeaseConnections;

  constructor(
    /** A pool of its own (SESSION_LEASE_MAX_CONNECTIONS), so held leases never starve the stores' queries. */
    private readonly sql: SQL,
    /** The pool's size: leases running at once (more wait for one to end). */
    max: number,
    private readonly waitMs: number,
    private readonly prefetch?: HistoryPrefetch,
    /** The session's appends during the lease, written by the statement that releases it (turn-writes.ts). */
    private readonly writes?: TurnWrites,
  ) {
    this.connections = new LeaseConnections(sql, max);
  }

  async hold<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    let conn: ReservedSQL;
    let started: Started;
    for (;;) {
      const connection = await this.connections.acquire();
      conn = connection.conn;
      try {
        started = await this.start(sessionId, conn);
        break;
      } catch (error) {
        // a kept connection gone meanwhile (a server restart, its idle timeout): the turn takes another
        if (connection.fresh || !connectionGone((error as PrxError).cause)) throw error;
      }
    }
    const { read, limit, generation } = started;
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

  /**
   * The lease's lock on `conn`, with the history read in its statement once this process has seen a turn's history
   * read (and its limit). Usually free: one statement. Otherwise the wait for it is server-side (no polling), bounded
   * by lock_timeout. On failure the connection is given back to the pool, or closed when the lock may have been taken.
   */
  private async start(sessionId: string, conn: ReservedSQL): Promise<Started> {
    const limit = this.prefetch?.readLimit ?? null;
    const memories = this.prefetch?.memories;
    const generation = memories?.generation ?? 0;
    let read: HistoryAndSummaryRow[] | null = null;
    /** While prx_turn_start runs: a failure may come after it took the lock. */
    let starting = false;
    try {
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
      this.connections.lost();
      const timedOut = /lock timeout|canceling statement/i.test(errorMessage(cause));
      throw new PrxError(
        timedOut ? "STORAGE_LEASE" : "STORAGE",
        timedOut
          ? `session ${sessionId} is busy on another replica for more than ${this.waitMs} ms`
          : `cannot take the lease of session ${sessionId}: ${errorMessage(cause)}`,
        { cause, status: 503, hint: timedOut ? "retry when the running turn has finished" : undefined },
      );
    }
    return { read, limit, generation };
  }

  /** The lease's end with the session's kept appends: written, committed and unlocked in one statement. */
  private async end(sessionId: string, conn: ReservedSQL): Promise<void> {
    try {
      await this.writes!.write(sessionId, conn, true);
    } catch (error) {
      this.drop(sessionId, conn, error);
      throw error;
    }
    this.connections.giveBack(conn);
  }

  /**
   * The lease's end with nothing to write. The turn's answer does not wait for the unlock: the next turn of the session
   * (here or on another replica) waits for it in PostgreSQL instead.
   */
  private unlock(sessionId: string, conn: ReservedSQL): void {
    conn.unsafe("SELECT pg_advisory_unlock(hashtext('prx.session'), hashtext($1))", [sessionId]).then(
      () => this.connections.giveBack(conn),
      (error: unknown) => this.drop(sessionId, conn, error),
    );
  }

  /** The connection is broken or its statement failed before the unlock: closing it drops the lock with it. */
  private drop(sessionId: string, conn: ReservedSQL, error: unknown): void {
    log.warn("session lease not released cleanly; closing its connection", { session: sessionId, error: errorMessage(error) });
    conn.close().catch((closing: unknown) => log.warn("lease connection close failed", { error: errorMessage(closing) }));
    this.connections.lost();
  }

  async close(): Promise<void> {
    this.connections.close();
    await this.sql.close();
  }
}

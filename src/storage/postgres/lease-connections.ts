import type { ReservedSQL, SQL } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { BACKGROUND_TIMERS, type Cancel, type Timers } from "../../core/timers.ts";
import { PG_IDLE_TIMEOUT_S } from "./connect.ts";

/** A connection kept unused this long is given back to the pool (which closes it once idle, as any other). */
export const LEASE_CONNECTION_KEEP_MS = PG_IDLE_TIMEOUT_S * 1000;

/** A connection for a lease, and whether it was reserved for it just now (else: it served an earlier lease). */
export interface LeaseConnection {
  conn: ReservedSQL;
  fresh: boolean;
}

interface Waiter {
  resolve(connection: LeaseConnection): void;
  reject(error: unknown): void;
}

/**
 * The session leases' connections (at most `max`, the lease pool's size): reserved from the pool once and kept
 * between leases, because reserving and releasing one per turn builds a new handle each time (Bun.sql's reserve)
 * and passes the connection through the pool's queue. A lease that ends cleanly (its lock released) gives its
 * connection to the lease waiting longest, or keeps it; one whose end failed is lost (closed) and its place reserved
 * again. Kept connections unused for LEASE_CONNECTION_KEEP_MS go back to the pool, so an idle process holds none.
 */
export class LeaseConnections {
  /** Kept connections, newest last (taken newest first: the oldest age out when fewer are needed). */
  private readonly kept: Array<{ conn: ReservedSQL; since: number }> = [];
  private readonly waiting: Waiter[] = [];
  /** Connections reserved from the pool and not given back: in a lease, being reserved, or kept. */
  private open = 0;
  private cancelSweep: Cancel | null = null;
  private closed = false;

  constructor(
    private readonly sql: SQL,
    private readonly max: number,
    /**
     * The monotonic clock kept connections age on and the timer of their sweep, which does not keep the process
     * alive (tests move both).
     */
    private readonly timers: Pick<Timers, "now" | "after"> = BACKGROUND_TIMERS,
  ) {}

  /** A connection for a lease: a kept one, a new one while fewer than `max` are open, else the next one given back. */
  acquire(): Promise<LeaseConnection> {
    if (this.closed) return Promise.reject(this.closedError());
    const kept = this.kept.pop();
    if (kept) return Promise.resolve({ conn: kept.conn, fresh: false });
    if (this.open < this.max) return this.reserve();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** A lease ended cleanly on `conn` (no lock held): it serves the lease waiting longest, or is kept. */
  giveBack(conn: ReservedSQL): void {
    const next = this.waiting.shift();
    if (next) return next.resolve({ conn, fresh: false });
    if (this.closed) {
      this.open--;
      return void conn.release();
    }
    this.kept.push({ conn, since: this.timers.now() });
    if (this.cancelSweep === null) this.scheduleSweep(LEASE_CONNECTION_KEEP_MS);
  }

  /** A lease's connection was given back to the pool or closed by its holder: its place is free. */
  lost(): void {
    this.open--;
    const next = this.waiting.shift();
    if (next) this.reserve().then(next.resolve, next.reject);
  }

  /** Every kept connection given back to the pool; waiting leases fail. */
  close(): void {
    this.closed = true;
    this.cancelSweep?.();
    this.cancelSweep = null;
    for (const { conn } of this.kept.splice(0)) (this.open--, conn.release());
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.closedError());
  }

  private async reserve(): Promise<LeaseConnection> {
    this.open++;
    try {
      return { conn: await this.sql.reserve(), fresh: true };
    } catch (cause) {
      this.lost();
      throw new PrxError("STORAGE", `cannot reserve a PostgreSQL connection for a session lease: ${errorMessage(cause)}`, {
        cause,
        status: 503,
        hint: "check that the database in [storage] url_env is reachable (prx storage status)",
      });
    }
  }

  private closedError(): PrxError {
    return new PrxError("STORAGE", "the session leases' connections are closed", { status: 503, hint: "the storage was closed: open it again" });
  }

  private scheduleSweep(inMs: number): void {
    this.cancelSweep = this.timers.after(() => this.sweepKept(), inMs);
  }

  /**
   * Connections kept unused for LEASE_CONNECTION_KEEP_MS go back to the pool (the oldest are first in the list); the
   * next sweep comes when the oldest of the others has been unused that long.
   */
  private sweepKept(): void {
    this.cancelSweep = null;
    const now = this.timers.now();
    let stale = 0;
    while (stale < this.kept.length && this.kept[stale]!.since <= now - LEASE_CONNECTION_KEEP_MS) stale++;
    for (const { conn } of this.kept.splice(0, stale)) (this.open--, conn.release());
    const oldest = this.kept[0];
    if (oldest) this.scheduleSweep(oldest.since + LEASE_CONNECTION_KEEP_MS - now);
  }
}

import type { Database } from "bun:sqlite";
import { CHANNEL_PAIRING_MAX_PENDING, CHANNEL_PAIRING_TTL_MS } from "../limits.ts";
import { newPairingCode, noPendingCode } from "../pairing-rules.ts";
import type { PairingRecord, PairingStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";
import { statement } from "./statements.ts";

/**
 * Who may talk to the assistant on each channel (every process sees an approval at once): an unknown sender gets a
 * pending code; the owner approves the code (`prx channel pair approve`, the API).
 */
export class SqlitePairingStore implements PairingStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    migrateSqlite(db);
  }

  isApproved(channel: string, senderId: string): boolean {
    return statement(this.db, "SELECT 1 FROM channel_pairings WHERE channel = ? AND sender_id = ? AND state = 'approved'").get(channel, senderId) !== null;
  }

  /**
   * The sender's pending code, or a new one. The reads and the writes are one write transaction from its start
   * (IMMEDIATE): a deferred one fails at its first write with SQLITE_BUSY at once, without the busy timeout, when
   * another process writes or has committed since its reads (SQLite cannot turn that read into a write); an immediate
   * one waits for the lock instead.
   */
  request(channel: string, senderId: string, display: string): string {
    return this.db.transaction((): string => {
      const now = this.now();
      const row = this.db
        .query<{ code: string; created_at: number }, [string, string]>(
          "SELECT code, created_at FROM channel_pairings WHERE channel = ? AND sender_id = ? AND state = 'pending'",
        )
        .get(channel, senderId);
      if (row && now - row.created_at < CHANNEL_PAIRING_TTL_MS) return row.code;
      this.db.query("DELETE FROM channel_pairings WHERE state = 'pending' AND created_at <= ?").run(now - CHANNEL_PAIRING_TTL_MS);
      const pending = this.db
        .query<{ sender_id: string }, [string]>(
          "SELECT sender_id FROM channel_pairings WHERE channel = ? AND state = 'pending' ORDER BY created_at",
        )
        .all(channel);
      for (const old of pending.slice(0, Math.max(0, pending.length - CHANNEL_PAIRING_MAX_PENDING + 1)))
        this.db.query("DELETE FROM channel_pairings WHERE channel = ? AND sender_id = ?").run(channel, old.sender_id);
      let code = newPairingCode();
      while (this.db.query("SELECT 1 FROM channel_pairings WHERE code = ?").get(code) !== null) code = newPairingCode();
      this.db
        .query(
          "INSERT INTO channel_pairings (channel, sender_id, display, code, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?) " +
            "ON CONFLICT(channel, sender_id) DO UPDATE SET code = excluded.code, display = excluded.display, created_at = excluded.created_at, state = 'pending'",
        )
        .run(channel, senderId, display, code, now);
      return code;
    }).immediate();
  }

  isOwner(channel: string, senderId: string): boolean {
    return (
      this.db
        .query("SELECT 1 FROM channel_pairings WHERE channel = ? AND sender_id = ? AND state = 'approved' AND owner = 1")
        .get(channel, senderId) !== null
    );
  }

  /** Read and update in one IMMEDIATE transaction: two processes approving one code cannot both see it pending. */
  approve(code: string, owner = false): PairingRecord {
    const normalized = code.trim().toUpperCase();
    return this.db
      .transaction(() => {
        const row = this.db
          .query<PairingRecord, [string]>("SELECT * FROM channel_pairings WHERE code = ? AND state = 'pending'")
          .get(normalized);
        if (!row || this.now() - row.created_at >= CHANNEL_PAIRING_TTL_MS) throw noPendingCode(normalized);
        const at = this.now();
        this.db
          .query("UPDATE channel_pairings SET state = 'approved', code = NULL, approved_at = ?, owner = ? WHERE channel = ? AND sender_id = ?")
          .run(at, owner ? 1 : 0, row.channel, row.sender_id);
        return { ...withOwner(row), state: "approved" as const, code: null, approved_at: at, owner };
      })
      .immediate();
  }

  revoke(senderId: string, channel?: string): number {
    const result =
      channel === undefined
        ? this.db.query("DELETE FROM channel_pairings WHERE sender_id = ?").run(senderId)
        : this.db.query("DELETE FROM channel_pairings WHERE sender_id = ? AND channel = ?").run(senderId, channel);
    return result.changes;
  }

  list(): PairingRecord[] {
    return this.db
      .query<PairingRecord, [number]>(
        "SELECT * FROM channel_pairings WHERE state = 'approved' OR created_at > ? ORDER BY channel, state, created_at",
      )
      .all(this.now() - CHANNEL_PAIRING_TTL_MS)
      .map(withOwner);
  }
}

/** SQLite keeps the owner mark as 0/1. */
function withOwner(row: PairingRecord): PairingRecord {
  return { ...row, owner: Boolean(row.owner) };
}

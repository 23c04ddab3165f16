import type { Database } from "bun:sqlite";
import { randomInt } from "node:crypto";
import { ensureSchema } from "../core/database.ts";
import { PrxError } from "../core/errors.ts";
import { CHANNEL_PAIRING_CODE_LENGTH, CHANNEL_PAIRING_MAX_PENDING, CHANNEL_PAIRING_TTL_MS } from "./limits.ts";

const DDL = `
CREATE TABLE IF NOT EXISTS channel_pairings (
  channel TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  display TEXT NOT NULL,
  code TEXT,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  approved_at INTEGER,
  PRIMARY KEY (channel, sender_id)
);
CREATE UNIQUE INDEX IF NOT EXISTS channel_pairings_code ON channel_pairings (code) WHERE code IS NOT NULL;`;

/** No 0/O, 1/I/L: a code read aloud or typed from a phone is not mistaken. */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export interface PairingRecord {
  channel: string;
  sender_id: string;
  display: string;
  code: string | null;
  state: "pending" | "approved";
  created_at: number;
  approved_at: number | null;
}

function newCode(): string {
  let code = "";
  for (let i = 0; i < CHANNEL_PAIRING_CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/**
 * Who may talk to the assistant on each channel, in the workspace database (every process sees an approval at once):
 * an unknown sender gets a pending code; the owner approves the code (`prx channel pair approve`, the API).
 */
export class PairingStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    ensureSchema(db, "channel_pairings", DDL);
  }

  isApproved(channel: string, senderId: string): boolean {
    return (
      this.db
        .query("SELECT 1 FROM channel_pairings WHERE channel = ? AND sender_id = ? AND state = 'approved'")
        .get(channel, senderId) !== null
    );
  }

  /** The sender's pending code, made when absent or expired (the oldest pending request is dropped past the max). */
  request(channel: string, senderId: string, display: string): string {
    return this.db.transaction((): string => {
      const now = this.now();
      const row = this.db
        .query("SELECT code, created_at FROM channel_pairings WHERE channel = ? AND sender_id = ? AND state = 'pending'")
        .get(channel, senderId) as { code: string; created_at: number } | null;
      if (row && now - row.created_at < CHANNEL_PAIRING_TTL_MS) return row.code;
      this.db.query("DELETE FROM channel_pairings WHERE state = 'pending' AND created_at <= ?").run(now - CHANNEL_PAIRING_TTL_MS);
      const pending = this.db
        .query("SELECT sender_id FROM channel_pairings WHERE channel = ? AND state = 'pending' ORDER BY created_at")
        .all(channel) as Array<{ sender_id: string }>;
      for (const old of pending.slice(0, Math.max(0, pending.length - CHANNEL_PAIRING_MAX_PENDING + 1)))
        this.db.query("DELETE FROM channel_pairings WHERE channel = ? AND sender_id = ?").run(channel, old.sender_id);
      let code = newCode();
      while (this.db.query("SELECT 1 FROM channel_pairings WHERE code = ?").get(code) !== null) code = newCode();
      this.db
        .query(
          "INSERT INTO channel_pairings (channel, sender_id, display, code, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?) " +
            "ON CONFLICT(channel, sender_id) DO UPDATE SET code = excluded.code, display = excluded.display, created_at = excluded.created_at, state = 'pending'",
        )
        .run(channel, senderId, display, code, now);
      return code;
    })();
  }

  /** Approve a pending code. Throws NOT_FOUND for an unknown or expired code. */
  approve(code: string): PairingRecord {
    const normalized = code.trim().toUpperCase();
    const row = this.db.query("SELECT * FROM channel_pairings WHERE code = ? AND state = 'pending'").get(normalized) as
      | PairingRecord
      | null;
    if (!row || this.now() - row.created_at >= CHANNEL_PAIRING_TTL_MS) {
      throw new PrxError("NOT_FOUND", `no pending pairing request with code ${normalized}`, {
        status: 404,
        hint: "list pending requests with `prx channel pair list`; codes expire after an hour: ask the sender to write again",
      });
    }
    this.db
      .query("UPDATE channel_pairings SET state = 'approved', code = NULL, approved_at = ? WHERE channel = ? AND sender_id = ?")
      .run(this.now(), row.channel, row.sender_id);
    return { ...row, state: "approved", code: null, approved_at: this.now() };
  }

  /** Revoke a sender (on one channel, or on every channel when none is named); returns how many were removed. */
  revoke(senderId: string, channel?: string): number {
    const result =
      channel === undefined
        ? this.db.query("DELETE FROM channel_pairings WHERE sender_id = ?").run(senderId)
        : this.db.query("DELETE FROM channel_pairings WHERE sender_id = ? AND channel = ?").run(senderId, channel);
    return result.changes;
  }

  list(): PairingRecord[] {
    return this.db
      .query("SELECT * FROM channel_pairings WHERE state = 'approved' OR created_at > ? ORDER BY channel, state, created_at")
      .all(this.now() - CHANNEL_PAIRING_TTL_MS) as PairingRecord[];
  }
}

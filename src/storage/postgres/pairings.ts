import type { SQL } from "bun";
import { CHANNEL_PAIRING_MAX_PENDING, CHANNEL_PAIRING_TTL_MS } from "../limits.ts";
import { newPairingCode, noPendingCode } from "../pairing-rules.ts";
import type { PairingRecord, PairingStore } from "../types.ts";
import { pg } from "./connect.ts";

/** Channel pairings in PostgreSQL: a request is made under a lock on its channel, so replicas agree on codes. */
export class PgPairingStore implements PairingStore {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number = Date.now,
  ) {}

  isApproved(channel: string, senderId: string): Promise<boolean> {
    return pg("pairing check", async () =>
      (
        await this.sql.unsafe("SELECT 1 FROM channel_pairings WHERE channel = $1 AND sender_id = $2 AND state = 'approved'", [
          channel,
          senderId,
        ])
      ).length > 0,
    );
  }

  request(channel: string, senderId: string, display: string): Promise<string> {
    return pg("pairing request", () =>
      this.sql.begin(async (tx): Promise<string> => {
        await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext('prx.pairing'), hashtext($1))", [channel]);
        const now = this.now();
        const row = (
          await tx.unsafe("SELECT code, created_at FROM channel_pairings WHERE channel = $1 AND sender_id = $2 AND state = 'pending'", [
            channel,
            senderId,
          ])
        )[0] as { code: string; created_at: number } | undefined;
        if (row && now - row.created_at < CHANNEL_PAIRING_TTL_MS) return row.code;
        await tx.unsafe("DELETE FROM channel_pairings WHERE state = 'pending' AND created_at <= $1", [now - CHANNEL_PAIRING_TTL_MS]);
        const pending = (await tx.unsafe(
          "SELECT sender_id FROM channel_pairings WHERE channel = $1 AND state = 'pending' ORDER BY created_at",
          [channel],
        )) as Array<{ sender_id: string }>;
        for (const old of pending.slice(0, Math.max(0, pending.length - CHANNEL_PAIRING_MAX_PENDING + 1)))
          await tx.unsafe("DELETE FROM channel_pairings WHERE channel = $1 AND sender_id = $2", [channel, old.sender_id]);
        let code = newPairingCode();
        while ((await tx.unsafe("SELECT 1 FROM channel_pairings WHERE code = $1", [code])).length > 0) code = newPairingCode();
        await tx.unsafe(
          "INSERT INTO channel_pairings (channel, sender_id, display, code, state, created_at) VALUES ($1, $2, $3, $4, 'pending', $5) " +
            "ON CONFLICT (channel, sender_id) DO UPDATE SET code = excluded.code, display = excluded.display, created_at = excluded.created_at, state = 'pending'",
          [channel, senderId, display, code, now],
        );
        return code;
      }),
    );
  }

  isOwner(channel: string, senderId: string): Promise<boolean> {
    return pg("pairing owner check", async () =>
      (
        await this.sql.unsafe(
          "SELECT 1 FROM channel_pairings WHERE channel = $1 AND sender_id = $2 AND state = 'approved' AND owner",
          [channel, senderId],
        )
      ).length > 0,
    );
  }

  async approve(code: string, owner = false): Promise<PairingRecord> {
    const normalized = code.trim().toUpperCase();
    const at = this.now();
    const rows = (await pg("pairing approve", () =>
      this.sql.unsafe(
        "UPDATE channel_pairings p SET state = 'approved', code = NULL, approved_at = $2, owner = $4 FROM channel_pairings old " +
          "WHERE p.channel = old.channel AND p.sender_id = old.sender_id AND old.code = $1 AND old.state = 'pending' AND old.created_at > $3 " +
          "RETURNING p.*",
        [normalized, at, at - CHANNEL_PAIRING_TTL_MS, owner],
      ),
    )) as PairingRecord[];
    if (!rows[0]) throw noPendingCode(normalized);
    return rows[0];
  }

  revoke(senderId: string, channel?: string): Promise<number> {
    return pg("pairing revoke", async () =>
      (channel === undefined
        ? await this.sql.unsafe("DELETE FROM channel_pairings WHERE sender_id = $1", [senderId])
        : await this.sql.unsafe("DELETE FROM channel_pairings WHERE sender_id = $1 AND channel = $2", [senderId, channel])
      ).count,
    );
  }

  list(): Promise<PairingRecord[]> {
    return pg("pairing list", async () =>
      (await this.sql.unsafe(
        "SELECT * FROM channel_pairings WHERE state = 'approved' OR created_at > $1 ORDER BY channel, state, created_at",
        [this.now() - CHANNEL_PAIRING_TTL_MS],
      )) as PairingRecord[],
    );
  }
}

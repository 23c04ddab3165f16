import type { Database } from "bun:sqlite";
import { ensureSchema } from "../core/database.ts";
import { PrxError } from "../core/errors.ts";
import { IDEMPOTENCY_KEY_MAX_BYTES, IDEMPOTENCY_PENDING_TIMEOUT_MS, IDEMPOTENCY_PURGE_BATCH } from "./limits.ts";

const DDL = `
CREATE TABLE IF NOT EXISTS gateway_idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  body_sha256 TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  response TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS gateway_idempotency_expiry ON gateway_idempotency (expires_at);`;

interface Row {
  body_sha256: string;
  state: "pending" | "done";
  status: number | null;
  response: string | null;
  created_at: number;
  expires_at: number;
}

export type IdempotencyBegin = { kind: "new" } | { kind: "replay"; status: number; body: string };

/** Validates an X-Idempotency-Key header value. */
export function checkIdempotencyKey(key: string): void {
  const bytes = Buffer.byteLength(key, "utf8");
  if (bytes === 0 || bytes > IDEMPOTENCY_KEY_MAX_BYTES) {
    throw new PrxError("BAD_REQUEST", `X-Idempotency-Key must be 1-${IDEMPOTENCY_KEY_MAX_BYTES} bytes, got ${bytes}`);
  }
}

/**
 * Idempotency keys, scoped per credential and tied to the SHA-256 of the request body, kept for a TTL.
 * `begin` claims a key atomically (SQLite transaction), so two processes sharing the workspace agree too.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    ensureSchema(db, "gateway_idempotency", DDL);
  }

  begin(scope: string, key: string, bodySha256: string): IdempotencyBegin {
    checkIdempotencyKey(key);
    const now = this.now();
    return this.db.transaction((): IdempotencyBegin => {
      this.db
        .query(
          "DELETE FROM gateway_idempotency WHERE rowid IN " +
            "(SELECT rowid FROM gateway_idempotency WHERE expires_at <= ? LIMIT ?)",
        )
        .run(now, IDEMPOTENCY_PURGE_BATCH);
      const row = this.db
        .query<Row, [string, string]>("SELECT * FROM gateway_idempotency WHERE scope = ? AND key = ?")
        .get(scope, key);
      const abandoned = row?.state === "pending" && now - row.created_at > IDEMPOTENCY_PENDING_TIMEOUT_MS;
      if (row && !abandoned) {
        if (row.body_sha256 !== bodySha256) {
          throw new PrxError("CONFLICT", "X-Idempotency-Key was already used with a different request body", {
            hint: "use a new key for a different request",
          });
        }
        if (row.state === "pending") {
          throw new PrxError("CONFLICT", "a request with this X-Idempotency-Key is still in progress", {
            hint: "retry after it finishes to get its stored reply",
          });
        }
        return { kind: "replay", status: row.status ?? 200, body: row.response ?? "" };
      }
      this.db
        .query(
          "INSERT OR REPLACE INTO gateway_idempotency (scope, key, body_sha256, state, created_at, expires_at) " +
            "VALUES (?, ?, ?, 'pending', ?, ?)",
        )
        .run(scope, key, bodySha256, now, now + this.ttlMs);
      return { kind: "new" };
    })();
  }

  complete(scope: string, key: string, status: number, body: string): void {
    this.db
      .query(
        "UPDATE gateway_idempotency SET state = 'done', status = ?, response = ?, expires_at = ? " +
          "WHERE scope = ? AND key = ?",
      )
      .run(status, body, this.now() + this.ttlMs, scope, key);
  }

  /** Forget a claim whose request failed in a way worth retrying (5xx). */
  release(scope: string, key: string): void {
    this.db.query("DELETE FROM gateway_idempotency WHERE scope = ? AND key = ? AND state = 'pending'").run(scope, key);
  }
}

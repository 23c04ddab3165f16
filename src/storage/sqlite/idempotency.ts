import type { Database } from "bun:sqlite";
import { IDEMPOTENCY_PURGE_BATCH } from "../limits.ts";
import { checkIdempotencyKey, decideExisting, type IdempotencyRow } from "../idempotency-rules.ts";
import type { IdempotencyBegin, IdempotencyStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";
import { settingNow, type Setting } from "../../core/setting.ts";

/**
 * Idempotency keys, scoped per credential and tied to the SHA-256 of the request body, kept for a TTL.
 * `begin` claims a key atomically (SQLite transaction), so two processes sharing the workspace agree too.
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: Database,
    private readonly ttl: Setting<number>,
    private readonly now: () => number,
  ) {
    migrateSqlite(db);
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
        .query<IdempotencyRow, [string, string]>("SELECT * FROM gateway_idempotency WHERE scope = ? AND key = ?")
        .get(scope, key);
      const existing = decideExisting(row, bodySha256, now);
      if (existing) return existing;
      this.db
        .query(
          "INSERT OR REPLACE INTO gateway_idempotency (scope, key, body_sha256, state, created_at, expires_at) " +
            "VALUES (?, ?, ?, 'pending', ?, ?)",
        )
        .run(scope, key, bodySha256, now, now + settingNow(this.ttl));
      return { kind: "new" };
    }).immediate();
  }

  complete(scope: string, key: string, status: number, body: string): void {
    this.db
      .query(
        "UPDATE gateway_idempotency SET state = 'done', status = ?, response = ?, expires_at = ? " +
          "WHERE scope = ? AND key = ?",
      )
      .run(status, body, this.now() + settingNow(this.ttl), scope, key);
  }

  release(scope: string, key: string): void {
    this.db.query("DELETE FROM gateway_idempotency WHERE scope = ? AND key = ? AND state = 'pending'").run(scope, key);
  }
}

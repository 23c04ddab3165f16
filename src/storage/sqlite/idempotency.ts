import type { Database } from "bun:sqlite";
import { IDEMPOTENCY_PURGE_BATCH } from "../limits.ts";
import { checkIdempotencyKey, decideExisting, type IdempotencyRow } from "../idempotency-rules.ts";
import type { IdempotencyBegin, IdempotencyStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";
import { settingNow, type Setting } from "../../core/setting.ts";
import { statement } from "./statements.ts";

const SQL = {
  purge: "DELETE FROM gateway_idempotency WHERE rowid IN (SELECT rowid FROM gateway_idempotency WHERE expires_at <= ? LIMIT ?)",
  get: "SELECT * FROM gateway_idempotency WHERE scope = ? AND key = ?",
  claim:
    "INSERT OR REPLACE INTO gateway_idempotency (scope, key, body_sha256, state, created_at, expires_at) VALUES (?, ?, ?, 'pending', ?, ?)",
  complete: "UPDATE gateway_idempotency SET state = 'done', status = ?, response = ?, expires_at = ? WHERE scope = ? AND key = ?",
  release: "DELETE FROM gateway_idempotency WHERE scope = ? AND key = ? AND state = 'pending'",
} as const;

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
      statement(this.db, SQL.purge).run(now, IDEMPOTENCY_PURGE_BATCH);
      const row = statement<IdempotencyRow, [string, string]>(this.db, SQL.get).get(scope, key);
      const existing = decideExisting(row, bodySha256, now);
      if (existing) return existing;
      statement(this.db, SQL.claim).run(scope, key, bodySha256, now, now + settingNow(this.ttl));
      return { kind: "new" };
    }).immediate();
  }

  complete(scope: string, key: string, status: number, body: string): void {
    statement(this.db, SQL.complete).run(status, body, this.now() + settingNow(this.ttl), scope, key);
  }

  release(scope: string, key: string): void {
    statement(this.db, SQL.release).run(scope, key);
  }
}

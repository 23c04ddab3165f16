import type { SQL } from "bun";
import { checkIdempotencyKey, decideExisting, type IdempotencyRow } from "../idempotency-rules.ts";
import { IDEMPOTENCY_PURGE_BATCH } from "../limits.ts";
import type { IdempotencyBegin, IdempotencyStore } from "../types.ts";
import { pg } from "./connect.ts";
import { settingNow, type Setting } from "../../core/setting.ts";

/** Idempotency keys in PostgreSQL: a key is claimed under a row lock, so replicas agree on who runs a request. */
export class PgIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly sql: SQL,
    private readonly ttl: Setting<number>,
    private readonly now: () => number,
  ) {}

  async begin(scope: string, key: string, bodySha256: string): Promise<IdempotencyBegin> {
    checkIdempotencyKey(key);
    const now = this.now();
    return pg("idempotency claim", () =>
      this.sql.begin(async (tx): Promise<IdempotencyBegin> => {
        await tx.unsafe(
          "DELETE FROM gateway_idempotency WHERE ctid IN (SELECT ctid FROM gateway_idempotency WHERE expires_at <= $1 LIMIT $2)",
          [now, IDEMPOTENCY_PURGE_BATCH],
        );
        // a first claim inserts; a concurrent one waits on the row and then reads it
        const inserted = await tx.unsafe(
          "INSERT INTO gateway_idempotency (scope, key, body_sha256, state, created_at, expires_at) " +
            "VALUES ($1, $2, $3, 'pending', $4, $5) ON CONFLICT (scope, key) DO NOTHING",
          [scope, key, bodySha256, now, now + settingNow(this.ttl)],
        );
        if (inserted.count === 1) return { kind: "new" };
        const rows = (await tx.unsafe("SELECT * FROM gateway_idempotency WHERE scope = $1 AND key = $2 FOR UPDATE", [
          scope,
          key,
        ])) as IdempotencyRow[];
        const existing = decideExisting(rows[0] ?? null, bodySha256, now);
        if (existing) return existing;
        await tx.unsafe(
          "UPDATE gateway_idempotency SET body_sha256 = $3, state = 'pending', status = NULL, response = NULL, " +
            "created_at = $4, expires_at = $5 WHERE scope = $1 AND key = $2",
          [scope, key, bodySha256, now, now + settingNow(this.ttl)],
        );
        return { kind: "new" };
      }),
    );
  }

  async complete(scope: string, key: string, status: number, body: string): Promise<void> {
    await pg("idempotency complete", () =>
      this.sql.unsafe(
        "UPDATE gateway_idempotency SET state = 'done', status = $1, response = $2, expires_at = $3 WHERE scope = $4 AND key = $5",
        [status, body, this.now() + settingNow(this.ttl), scope, key],
      ),
    );
  }

  async release(scope: string, key: string): Promise<void> {
    await pg("idempotency release", () =>
      this.sql.unsafe("DELETE FROM gateway_idempotency WHERE scope = $1 AND key = $2 AND state = 'pending'", [scope, key]),
    );
  }
}

/** Idempotency keys live in src/storage (SQLite and PostgreSQL); the gateway's names for them. */
export { SqliteIdempotencyStore as IdempotencyStore, checkIdempotencyKey } from "../storage/index.ts";
export type { IdempotencyBegin, IdempotencyStore as IdempotencyStoreApi } from "../storage/types.ts";

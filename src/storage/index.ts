export type * from "./types.ts";
export * from "./limits.ts";
export {
  openStorage,
  openSqliteStorage,
  openMemoryVectors,
  sqliteStorage,
  type StorageSettings,
  type SqliteStorage,
} from "./open.ts";
export { urlFromEnv } from "./env.ts";
export { validateSessionId, historyFrom } from "./session-history.ts";
export { checkIdempotencyKey } from "./idempotency-rules.ts";
export { TOKEN_PREFIX } from "./token-util.ts";
export { openSqliteDatabase, SQLITE_BUSY_TIMEOUT_MS } from "./sqlite/database.ts";
export { migrateSqlite, sqliteStatus, SQLITE_MIGRATIONS } from "./sqlite/schema.ts";
export { SqliteSessionStore } from "./sqlite/sessions.ts";
export { SqliteTokenStore } from "./sqlite/tokens.ts";
export { SqliteIdempotencyStore } from "./sqlite/idempotency.ts";
export { SqlitePluginKvStore } from "./sqlite/plugin-kv.ts";
export { SqliteCronStateStore } from "./sqlite/cron-state.ts";
export { SqliteChannelStateStore } from "./sqlite/channels.ts";
export { SqlitePairingStore } from "./sqlite/pairings.ts";

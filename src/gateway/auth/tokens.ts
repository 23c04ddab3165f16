/** Gateway bearer tokens live in src/storage (SQLite and PostgreSQL); the gateway's names for them. */
export { SqliteTokenStore as TokenStore, TOKEN_PREFIX, TOKEN_CACHE_MAX_ENTRIES } from "../../storage/index.ts";
export type { TokenRecord, TokenStore as TokenStoreApi } from "../../storage/types.ts";

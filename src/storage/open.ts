import type { Database } from "bun:sqlite";
import { urlFromEnv } from "./env.ts";
import { SqliteChannelStateStore } from "./sqlite/channels.ts";
import { SqliteCronStateStore } from "./sqlite/cron-state.ts";
import { SqliteIdempotencyStore } from "./sqlite/idempotency.ts";
import { SqlitePairingStore } from "./sqlite/pairings.ts";
import { SqlitePluginKvStore } from "./sqlite/plugin-kv.ts";
import { migrateSqlite, sqliteStatus } from "./sqlite/schema.ts";
import { SqliteSessionStore } from "./sqlite/sessions.ts";
import { SqliteTokenStore } from "./sqlite/tokens.ts";
import type { Storage, StorageBackendName } from "./types.ts";

export interface StoreOptions {
  /** Clock of tokens, idempotency keys and pairings (tests move it). */
  now?: () => number;
  /** gateway.idempotency_ttl_s in ms. */
  idempotencyTtlMs?: number;
}

const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;

export interface SqliteStorage extends Storage {
  readonly backend: "sqlite";
  readonly db: Database;
  readonly sessions: SqliteSessionStore;
  readonly tokens: SqliteTokenStore;
}

/** Every store on the workspace SQLite database (its owner, the agent host, closes the database). */
export function sqliteStorage(db: Database, options: StoreOptions = {}): SqliteStorage {
  migrateSqlite(db);
  const now = options.now ?? Date.now;
  // each store is made (and prepares its statements) on first use: most processes touch few of them
  let sessions: SqliteSessionStore | undefined;
  let tokens: SqliteTokenStore | undefined;
  let idempotency: SqliteIdempotencyStore | undefined;
  let pluginKv: SqlitePluginKvStore | undefined;
  let cron: SqliteCronStateStore | undefined;
  let channels: SqliteChannelStateStore | undefined;
  let pairings: SqlitePairingStore | undefined;
  return {
    backend: "sqlite",
    db,
    sql: null,
    get sessions() {
      return (sessions ??= new SqliteSessionStore(db));
    },
    leases: null,
    get tokens() {
      return (tokens ??= new SqliteTokenStore(db, now));
    },
    get idempotency() {
      return (idempotency ??= new SqliteIdempotencyStore(db, options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, now));
    },
    get pluginKv() {
      return (pluginKv ??= new SqlitePluginKvStore(db));
    },
    get cron() {
      return (cron ??= new SqliteCronStateStore(db));
    },
    get channels() {
      return (channels ??= new SqliteChannelStateStore(db));
    },
    get pairings() {
      return (pairings ??= new SqlitePairingStore(db, now));
    },
    status: async () => sqliteStatus(db),
    close: async () => {},
  };
}

/** `[storage]` of config.toml, as the storage layer reads it (the config schema lives above it). */
export interface StorageSettings {
  backend: "sqlite" | "postgres";
  url_env: string;
  schema: string;
  pool_max: number;
  synchronous_commit: boolean;
}

/** The workspace's stores as `[storage]` says: the SQLite database given, or PostgreSQL at the URL in url_env. */
export async function openStorage(
  settings: StorageSettings,
  db: Database,
  env: Record<string, string | undefined>,
  options: StoreOptions & { migrate?: boolean } = {},
): Promise<Storage & { backend: StorageBackendName }> {
  if (settings.backend === "sqlite") return sqliteStorage(db, options);
  // loaded only when used: a SQLite workspace never loads the PostgreSQL stores
  const { pgStorage } = await import("./postgres/open.ts");
  return pgStorage({
    ...options,
    url: urlFromEnv(settings.url_env, env, '[storage] backend = "postgres"'),
    schema: settings.schema,
    poolMax: settings.pool_max,
    synchronousCommit: settings.synchronous_commit,
  });
}

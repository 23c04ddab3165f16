import type { Database } from "bun:sqlite";
import { urlFromEnv } from "./env.ts";
import type { SqliteChannelStateStore } from "./sqlite/channels.ts";
import type { SqliteCronStateStore } from "./sqlite/cron-state.ts";
import type { SqliteIdempotencyStore } from "./sqlite/idempotency.ts";
import type { SqlitePairingStore } from "./sqlite/pairings.ts";
import type { SqlitePluginKvStore } from "./sqlite/plugin-kv.ts";
import { migrateSqlite, sqliteStatus } from "./sqlite/schema.ts";
import { SqliteSessionStore } from "./sqlite/sessions.ts";
import type { SqliteTokenStore } from "./sqlite/tokens.ts";
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

/**
 * A store's module, loaded by the first use of the store: `require` is a synchronous chunk load in the binary (and a
 * synchronous import from source), so a process that touches only sessions (a one-shot `prx agent -m`) loads none of
 * the others.
 */
const storeModule = {
  tokens: () => require("./sqlite/tokens.ts") as typeof import("./sqlite/tokens.ts"),
  idempotency: () => require("./sqlite/idempotency.ts") as typeof import("./sqlite/idempotency.ts"),
  pluginKv: () => require("./sqlite/plugin-kv.ts") as typeof import("./sqlite/plugin-kv.ts"),
  cron: () => require("./sqlite/cron-state.ts") as typeof import("./sqlite/cron-state.ts"),
  channels: () => require("./sqlite/channels.ts") as typeof import("./sqlite/channels.ts"),
  pairings: () => require("./sqlite/pairings.ts") as typeof import("./sqlite/pairings.ts"),
};

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
      return (tokens ??= new (storeModule.tokens().SqliteTokenStore)(db, now));
    },
    get idempotency() {
      return (idempotency ??= new (storeModule.idempotency().SqliteIdempotencyStore)(db, options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, now));
    },
    get pluginKv() {
      return (pluginKv ??= new (storeModule.pluginKv().SqlitePluginKvStore)(db));
    },
    get cron() {
      return (cron ??= new (storeModule.cron().SqliteCronStateStore)(db));
    },
    get channels() {
      return (channels ??= new (storeModule.channels().SqliteChannelStateStore)(db));
    },
    get pairings() {
      return (pairings ??= new (storeModule.pairings().SqlitePairingStore)(db, now));
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

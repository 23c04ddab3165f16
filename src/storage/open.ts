import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { SESSION_LEASE_MAX_CONNECTIONS, SESSION_LEASE_WAIT_MS } from "./limits.ts";
import { migratePg, pgStatus } from "./postgres/migrations.ts";
import { openPg, urlFromEnv } from "./postgres/connect.ts";
import { PgChannelStateStore } from "./postgres/channels.ts";
import { PgCronStateStore } from "./postgres/cron-state.ts";
import { PgIdempotencyStore } from "./postgres/idempotency.ts";
import { PgPairingStore } from "./postgres/pairings.ts";
import { PgPluginKvStore } from "./postgres/plugin-kv.ts";
import { PgSessionLeases } from "./postgres/session-leases.ts";
import { PgSessionStore } from "./postgres/sessions.ts";
import { PgTokenStore } from "./postgres/tokens.ts";
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

export interface PgStorage extends Storage {
  readonly backend: "postgres";
  readonly sql: SQL;
  /** Migration versions this open applied (empty when another replica had). */
  readonly applied: number[];
}

/** Every store on the workspace SQLite database (its owner, the agent host, closes the database). */
export function sqliteStorage(db: Database, options: StoreOptions = {}): SqliteStorage {
  migrateSqlite(db);
  const now = options.now ?? Date.now;
  return {
    backend: "sqlite",
    db,
    sql: null,
    sessions: new SqliteSessionStore(db),
    leases: null,
    tokens: new SqliteTokenStore(db, now),
    idempotency: new SqliteIdempotencyStore(db, options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, now),
    pluginKv: new SqlitePluginKvStore(db),
    cron: new SqliteCronStateStore(db),
    channels: new SqliteChannelStateStore(db),
    pairings: new SqlitePairingStore(db, now),
    status: async () => sqliteStatus(db),
    close: async () => {},
  };
}

export interface PgStorageOptions extends StoreOptions {
  url: string;
  schema: string;
  poolMax: number;
  /** [storage] synchronous_commit (default false). */
  synchronousCommit?: boolean;
  /** Skip migrations (`prx storage status` reads what is there). */
  migrate?: boolean;
  leaseWaitMs?: number;
}

/** Every store on PostgreSQL, after applying pending migrations under the advisory lock. */
export async function pgStorage(options: PgStorageOptions): Promise<PgStorage> {
  const pool = { url: options.url, schema: options.schema, synchronousCommit: options.synchronousCommit };
  const sql = openPg({ ...pool, max: options.poolMax });
  let applied: number[] = [];
  try {
    if (options.migrate !== false) applied = await migratePg(sql, options.schema);
  } catch (error) {
    await sql.close();
    throw error;
  }
  const leasePool = openPg({ ...pool, max: Math.min(options.poolMax, SESSION_LEASE_MAX_CONNECTIONS) });
  const leases = new PgSessionLeases(leasePool, options.leaseWaitMs ?? SESSION_LEASE_WAIT_MS);
  const now = options.now ?? Date.now;
  return {
    backend: "postgres",
    sql,
    applied,
    sessions: new PgSessionStore(sql),
    leases,
    tokens: new PgTokenStore(sql, now),
    idempotency: new PgIdempotencyStore(sql, options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, now),
    pluginKv: new PgPluginKvStore(sql),
    cron: new PgCronStateStore(sql),
    channels: new PgChannelStateStore(sql),
    pairings: new PgPairingStore(sql, now),
    status: () => pgStatus(sql),
    close: async () => {
      await leases.close();
      await sql.close();
    },
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
  return pgStorage({
    ...options,
    url: urlFromEnv(settings.url_env, env, '[storage] backend = "postgres"'),
    schema: settings.schema,
    poolMax: settings.pool_max,
    synchronousCommit: settings.synchronous_commit,
  });
}

import type { Database } from "bun:sqlite";
import { errorMessage } from "../core/errors.ts";
import { DEFAULT_RESPONSES_TTL_MS } from "./limits.ts";
import { urlFromEnv } from "./env.ts";
import type { SqliteApprovalStore, SqliteAuditStore } from "./sqlite/autonomy.ts";
import type { SqliteChannelStateStore } from "./sqlite/channels.ts";
import type { SqliteCronStateStore } from "./sqlite/cron-state.ts";
import type { SqliteCronJobStore } from "./sqlite/cron-jobs.ts";
import { openSqliteDatabase } from "./sqlite/database.ts";
import type { SqliteGatewayPairingStore } from "./sqlite/gateway-pairing.ts";
import type { SqliteIdempotencyStore } from "./sqlite/idempotency.ts";
import type { SqliteMediaStore } from "./sqlite/media.ts";
import type { SqliteUsageStore } from "./sqlite/usage.ts";
import type { SqliteMemoryStore } from "./sqlite/memory.ts";
import type { SqlitePairingStore } from "./sqlite/pairings.ts";
import type { SqlitePluginKvStore } from "./sqlite/plugin-kv.ts";
import type { SqliteRemotePluginStore } from "./sqlite/remote-plugins.ts";
import type { SqliteResponseStore } from "./sqlite/responses.ts";
import type { SqliteSessionLinkStore } from "./sqlite/session-links.ts";
import { sqliteStatus } from "./sqlite/schema.ts";
import { migrateAndStamp, schemaStamped } from "./sqlite/schema-stamp.ts";
import { SqliteSessionStore } from "./sqlite/sessions.ts";
import type { SqliteTokenStore } from "./sqlite/tokens.ts";
import type { FileStores, MemoryVectorStore, Storage, StorageBackendName, StorageOptions, StoragePing } from "./types.ts";

const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;

export interface SqliteStorage extends Storage {
  readonly backend: "sqlite";
  /** The connection the stores share (its owner is this storage: close() closes it). */
  readonly db: Database;
  readonly sessions: SqliteSessionStore;
  readonly tokens: SqliteTokenStore;
  readonly gatewayPairing: SqliteGatewayPairingStore;
  readonly idempotency: SqliteIdempotencyStore;
  readonly responses: SqliteResponseStore;
  readonly pluginKv: SqlitePluginKvStore;
  readonly cron: SqliteCronStateStore;
  readonly cronJobs: SqliteCronJobStore;
  readonly channels: SqliteChannelStateStore;
  readonly pairings: SqlitePairingStore;
  readonly media: SqliteMediaStore;
  readonly usage: SqliteUsageStore;
  readonly memory: SqliteMemoryStore;
  readonly remotePlugins: SqliteRemotePluginStore;
  readonly approvals: SqliteApprovalStore;
  readonly audit: SqliteAuditStore;
  readonly sessionLinks: SqliteSessionLinkStore;
}

/**
 * A store's module, loaded by the first use of the store: `require` is a synchronous chunk load in the binary (and a
 * synchronous import from source), so a process that touches only sessions (a one-shot `prx agent -m`) loads none of
 * the others.
 */
const storeModule = {
  tokens: () => require("./sqlite/tokens.ts") as typeof import("./sqlite/tokens.ts"),
  gatewayPairing: () => require("./sqlite/gateway-pairing.ts") as typeof import("./sqlite/gateway-pairing.ts"),
  idempotency: () => require("./sqlite/idempotency.ts") as typeof import("./sqlite/idempotency.ts"),
  responses: () => require("./sqlite/responses.ts") as typeof import("./sqlite/responses.ts"),
  pluginKv: () => require("./sqlite/plugin-kv.ts") as typeof import("./sqlite/plugin-kv.ts"),
  cron: () => require("./sqlite/cron-state.ts") as typeof import("./sqlite/cron-state.ts"),
  cronJobs: () => require("./sqlite/cron-jobs.ts") as typeof import("./sqlite/cron-jobs.ts"),
  channels: () => require("./sqlite/channels.ts") as typeof import("./sqlite/channels.ts"),
  pairings: () => require("./sqlite/pairings.ts") as typeof import("./sqlite/pairings.ts"),
  memory: () => require("./sqlite/memory.ts") as typeof import("./sqlite/memory.ts"),
  remotePlugins: () => require("./sqlite/remote-plugins.ts") as typeof import("./sqlite/remote-plugins.ts"),
  media: () => require("./sqlite/media.ts") as typeof import("./sqlite/media.ts"),
  usage: () => require("./sqlite/usage.ts") as typeof import("./sqlite/usage.ts"),
  autonomy: () => require("./sqlite/autonomy.ts") as typeof import("./sqlite/autonomy.ts"),
  sessionLinks: () => require("./sqlite/session-links.ts") as typeof import("./sqlite/session-links.ts"),
};

function ping(db: Database): StoragePing {
  try {
    db.query("SELECT 1").get();
    return { ok: true };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

/**
 * With hybrid recall the connection reads the database through a memory map of up to this many bytes: each recall
 * scans every entry's 96-byte code (10 MB at 100k entries), which SQLite's default 2 MB page cache would copy in from
 * the file again each time (measured at 100k: 39 -> 16 ms a scan). Pages are the OS's file cache, shared, not copies.
 */
export const SQLITE_VECTOR_MMAP_BYTES = 256 * 1024 * 1024;

/** Memory's vectors on `db`, its modules loaded only here: a start without hybrid recall loads neither. */
export async function openMemoryVectors(db: Database, cacheDir: string): Promise<MemoryVectorStore | { unavailable: string }> {
  const { loadVectorExtension } = await import("./sqlite/vector-extension.ts");
  const extension = await loadVectorExtension(db, cacheDir);
  if (!extension.loaded) return { unavailable: extension.reason };
  const { SqliteMemoryVectorStore } = await import("./sqlite/memory-vectors.ts");
  return new SqliteMemoryVectorStore(db, { mmapBytes: SQLITE_VECTOR_MMAP_BYTES });
}

/** `stores` with the stores of the workspace SQLite file on `db` added, each made on first use. */
function withFileStores<T extends object>(
  stores: T,
  db: Database,
): T & FileStores & { memory: SqliteMemoryStore; remotePlugins: SqliteRemotePluginStore } {
  let memory: SqliteMemoryStore | undefined;
  let remotePlugins: SqliteRemotePluginStore | undefined;
  return Object.defineProperties(stores, {
    path: { value: db.filename, enumerable: true },
    memory: { get: () => (memory ??= new (storeModule.memory().SqliteMemoryStore)(db)), enumerable: true },
    remotePlugins: {
      get: () => (remotePlugins ??= new (storeModule.remotePlugins().SqliteRemotePluginStore)(db)),
      enumerable: true,
    },
    memoryVectors: { value: (cacheDir: string) => openMemoryVectors(db, cacheDir), enumerable: true },
    ping: { value: () => ping(db), enumerable: true },
  }) as T & FileStores & { memory: SqliteMemoryStore; remotePlugins: SqliteRemotePluginStore };
}

/** Every store on the SQLite database `db`; close() closes `db` (closing twice is harmless). */
export function sqliteStorage(db: Database, options: StorageOptions = {}): SqliteStorage {
  // a database this prx has migrated and made the memory tables of says so in its header (schema-stamp.ts); one that
  // does not is brought to this prx's schema now, so that the next open reads one PRAGMA
  if (!schemaStamped(db)) migrateAndStamp(db);
  const now = options.now ?? Date.now;
  // each store is made (and prepares its statements) on first use: most processes touch few of them
  let sessions: SqliteSessionStore | undefined;
  let tokens: SqliteTokenStore | undefined;
  let gatewayPairing: SqliteGatewayPairingStore | undefined;
  let idempotency: SqliteIdempotencyStore | undefined;
  let responses: SqliteResponseStore | undefined;
  let pluginKv: SqlitePluginKvStore | undefined;
  let cron: SqliteCronStateStore | undefined;
  let cronJobs: SqliteCronJobStore | undefined;
  let channels: SqliteChannelStateStore | undefined;
  let pairings: SqlitePairingStore | undefined;
  let media: SqliteMediaStore | undefined;
  let usage: SqliteUsageStore | undefined;
  let approvals: SqliteApprovalStore | undefined;
  let audit: SqliteAuditStore | undefined;
  let sessionLinks: SqliteSessionLinkStore | undefined;
  const stores = {
    backend: "sqlite" as const,
    db,
    sql: null,
    memoryPresence: null,
    get sessions() {
      return (sessions ??= new SqliteSessionStore(db));
    },
    leases: null,
    get tokens() {
      return (tokens ??= new (storeModule.tokens().SqliteTokenStore)(db, now));
    },
    get gatewayPairing() {
      return (gatewayPairing ??= new (storeModule.gatewayPairing().SqliteGatewayPairingStore)(db, now));
    },
    get idempotency() {
      return (idempotency ??= new (storeModule.idempotency().SqliteIdempotencyStore)(db, options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, now));
    },
    get responses() {
      return (responses ??= new (storeModule.responses().SqliteResponseStore)(db, options.responsesTtlMs ?? DEFAULT_RESPONSES_TTL_MS, now));
    },
    get pluginKv() {
      return (pluginKv ??= new (storeModule.pluginKv().SqlitePluginKvStore)(db));
    },
    get cron() {
      return (cron ??= new (storeModule.cron().SqliteCronStateStore)(db));
    },
    get cronJobs() {
      return (cronJobs ??= new (storeModule.cronJobs().SqliteCronJobStore)(db));
    },
    get channels() {
      return (channels ??= new (storeModule.channels().SqliteChannelStateStore)(db, now));
    },
    get pairings() {
      return (pairings ??= new (storeModule.pairings().SqlitePairingStore)(db, now));
    },
    get media() {
      return (media ??= new (storeModule.media().SqliteMediaStore)(db));
    },
    get usage() {
      return (usage ??= new (storeModule.usage().SqliteUsageStore)(db));
    },
    get approvals() {
      return (approvals ??= new (storeModule.autonomy().SqliteApprovalStore)(db));
    },
    get audit() {
      return (audit ??= new (storeModule.autonomy().SqliteAuditStore)(db));
    },
    get sessionLinks() {
      return (sessionLinks ??= new (storeModule.sessionLinks().SqliteSessionLinkStore)(db));
    },
    status: async () => sqliteStatus(db),
    close: async () => db.close(),
  };
  return withFileStores(stores, db);
}

/** Every store on a new connection to the SQLite file at `path` (":memory:": a throw-away database). */
export function openSqliteStorage(path: string, options: StorageOptions = {}): SqliteStorage {
  const db = openSqliteDatabase(path);
  try {
    return sqliteStorage(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** `[storage]` of config.toml, as the storage layer reads it (the config schema lives above it). */
export interface StorageSettings {
  backend: "sqlite" | "postgres";
  url_env: string;
  schema: string;
  pool_max: number;
  synchronous_commit: boolean;
}

/**
 * The workspace's stores as `[storage]` says, over the workspace SQLite file at `path` (opened here, closed with the
 * storage): its stores alone, or PostgreSQL at the URL in url_env for the shared ones.
 */
export async function openStorage(
  settings: StorageSettings,
  path: string,
  env: Record<string, string | undefined>,
  options: StorageOptions & { migrate?: boolean } = {},
): Promise<Storage & { backend: StorageBackendName }> {
  if (settings.backend === "sqlite") return openSqliteStorage(path, options);
  const db = openSqliteDatabase(path);
  try {
    // loaded only when used: a SQLite workspace never loads the PostgreSQL stores
    const { pgStorage } = await import("./postgres/open.ts");
    const shared = await pgStorage({
      ...options,
      url: urlFromEnv(settings.url_env, env, '[storage] backend = "postgres"'),
      schema: settings.schema,
      poolMax: settings.pool_max,
      synchronousCommit: settings.synchronous_commit,
    });
    return withFileStores({
      ...shared,
      close: async () => {
        try {
          await shared.close();
        } finally {
          db.close();
        }
      },
    }, db);
  } catch (error) {
    db.close();
    throw error;
  }
}

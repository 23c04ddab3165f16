import type { SQL } from "bun";
import { DEFAULT_RESPONSES_TTL_MS, SESSION_LEASE_MAX_CONNECTIONS, SESSION_LEASE_WAIT_MS } from "../limits.ts";
import type { BackendStorage, StorageOptions } from "../types.ts";
import { PgApprovalStore, PgAuditStore } from "./autonomy.ts";
import { PgChannelStateStore } from "./channels.ts";
import { openPg } from "./connect.ts";
import { PgCronStateStore } from "./cron-state.ts";
import { PgCronJobStore } from "./cron-jobs.ts";
import { PgGatewayPairingStore } from "./gateway-pairing.ts";
import { HistoryPrefetch } from "./history-prefetch.ts";
import { PgIdempotencyStore } from "./idempotency.ts";
import { PgMediaStore } from "./media.ts";
import { migratePg, pgStatus } from "./migrations.ts";
import { PgPairingStore } from "./pairings.ts";
import { PgPluginKvStore } from "./plugin-kv.ts";
import { PgResponseStore } from "./responses.ts";
import { PgSessionLeases } from "./session-leases.ts";
import { PgSessionLinkStore } from "./session-links.ts";
import { PgSessionStore } from "./sessions.ts";
import { PgUsageStore } from "./usage.ts";
import { PgTokenStore } from "./tokens.ts";
import { TurnWrites } from "./turn-writes.ts";

const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;

export interface PgStorage extends BackendStorage {
  readonly backend: "postgres";
  readonly sql: SQL;
  /** Migration versions this open applied (empty when another replica had). */
  readonly applied: number[];
}

export interface PgStorageOptions extends StorageOptions {
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
  const leaseMax = Math.min(options.poolMax, SESSION_LEASE_MAX_CONNECTIONS);
  const leasePool = openPg({ ...pool, max: leaseMax });
  const prefetch = new HistoryPrefetch();
  const writes = new TurnWrites();
  const leases = new PgSessionLeases(leasePool, leaseMax, options.leaseWaitMs ?? SESSION_LEASE_WAIT_MS, prefetch, writes);
  const now = options.now ?? Date.now;
  return {
    backend: "postgres",
    sql,
    memoryPresence: prefetch.memories,
    applied,
    sessions: new PgSessionStore(sql, prefetch, writes),
    leases,
    tokens: new PgTokenStore(sql, now),
    gatewayPairing: new PgGatewayPairingStore(sql, now),
    idempotency: new PgIdempotencyStore(sql, options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, now),
    responses: new PgResponseStore(sql, options.responsesTtlMs ?? DEFAULT_RESPONSES_TTL_MS, now),
    pluginKv: new PgPluginKvStore(sql),
    cron: new PgCronStateStore(sql),
    cronJobs: new PgCronJobStore(sql, options.schema),
    channels: new PgChannelStateStore(sql, now),
    pairings: new PgPairingStore(sql, now),
    media: new PgMediaStore(sql),
    usage: new PgUsageStore(sql),
    approvals: new PgApprovalStore(sql, options.schema),
    audit: new PgAuditStore(sql),
    sessionLinks: new PgSessionLinkStore(sql),
    status: () => pgStatus(sql),
    close: async () => {
      await leases.close();
      await sql.close();
    },
  };
}

import type { ReservedSQL, SQL } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
import type { MigrationStatus } from "../types.ts";
import { searchPathFor } from "./connect.ts";
import { installVector, VECTOR_MIGRATION_SQL, vectorOffered } from "./migration-vector.ts";
import { LEASE_START_SQL } from "./migration-lease-start.ts";
import { TURN_START_SQL } from "./migration-turn-start.ts";
import { TURN_END_SQL } from "./migration-turn-end.ts";
import { TURN_COUNT_SQL } from "./migration-turn-count.ts";
import { MEMORY_TERMS_SQL } from "./migration-memory-terms.ts";
import { SESSION_COUNTS_SQL, SESSION_SEARCH_SQL } from "./migration-sessions.ts";

/**
 * PostgreSQL schema of every store, as versioned migrations recorded in `prx_migrations`. `migratePg` runs under
 * a session advisory lock, so replicas starting at once migrate once (the others wait, then find nothing to do).
 * Memory's full-text index uses `prx_english`: the English Snowball stemmer (as SQLite's porter tokenizer stems)
 * without a stop-word list (recall drops its own stop words; a word the English list drops would otherwise match
 * nothing); every run of characters other than letters and digits separates words first, as SQLite's unicode61
 * tokenizer does (so "samcarter.dev" holds "samcarter" and "dev", not one host name). Epoch-millisecond columns are `double precision` (exact for integers below 2^53, and read back as numbers).
 */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
  /**
   * "vector": applied only where pgvector is installed or installable (see migration-vector.ts); on other servers
   * it is neither applied nor pending, and a server that gains pgvector gets it on the next start.
   */
  requires?: "vector";
}

/** The advisory lock key of migrations (two int4 keys: "prx" and "migrate"). */
const LOCK = "hashtext('prx'), hashtext('migrate')";

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "sessions, tokens, idempotency, plugin kv, cron, channels",
    sql: `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX sessions_updated ON sessions (updated_at DESC);
CREATE TABLE session_messages (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  tool_calls TEXT,
  tool_call_id TEXT,
  name TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE gateway_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked BOOLEAN NOT NULL DEFAULT false
);
CREATE TABLE gateway_idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  body_sha256 TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  response TEXT,
  created_at DOUBLE PRECISION NOT NULL,
  expires_at DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX gateway_idempotency_expiry ON gateway_idempotency (expires_at);
CREATE TABLE plugin_kv (
  plugin TEXT NOT NULL,
  key TEXT NOT NULL,
  value BYTEA NOT NULL,
  PRIMARY KEY (plugin, key)
);
CREATE TABLE cron_state (
  job_id TEXT PRIMARY KEY,
  schedule TEXT NOT NULL,
  last_slot DOUBLE PRECISION NOT NULL,
  removed_at DOUBLE PRECISION,
  fires INTEGER NOT NULL DEFAULT 0,
  last_fired_at DOUBLE PRECISION,
  last_finished_at DOUBLE PRECISION,
  last_ok BOOLEAN,
  last_error TEXT,
  lease_owner TEXT,
  lease_until DOUBLE PRECISION,
  fence INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE channel_cursor (
  channel TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE channel_inbox (
  channel TEXT NOT NULL,
  message_id TEXT NOT NULL,
  chat_key TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL,
  reply TEXT,
  parts_sent INTEGER NOT NULL DEFAULT 0,
  received_at DOUBLE PRECISION NOT NULL,
  seq BIGSERIAL,
  PRIMARY KEY (channel, message_id)
);
CREATE INDEX channel_inbox_open ON channel_inbox (channel, state, seq);
CREATE TABLE channel_status (
  channel TEXT PRIMARY KEY,
  pid INTEGER,
  state TEXT NOT NULL,
  last_inbound DOUBLE PRECISION,
  last_outbound DOUBLE PRECISION,
  last_error TEXT,
  updated_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE channel_pairings (
  channel TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  display TEXT NOT NULL,
  code TEXT,
  state TEXT NOT NULL,
  created_at DOUBLE PRECISION NOT NULL,
  approved_at DOUBLE PRECISION,
  PRIMARY KEY (channel, sender_id)
);
CREATE UNIQUE INDEX channel_pairings_code ON channel_pairings (code) WHERE code IS NOT NULL;`,
  },
  {
    version: 2,
    name: "memory with full-text search",
    sql: `
CREATE TEXT SEARCH DICTIONARY prx_english_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION prx_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION prx_english
  ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH prx_english_stem;
CREATE TABLE memories (
  seq BIGSERIAL PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  key TEXT NOT NULL UNIQUE,
  content TEXT NOT NULL,
  category TEXT NOT NULL,
  session_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  private BOOLEAN NOT NULL DEFAULT false,
  fts tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('prx_english', regexp_replace(key, '[^[:alnum:]]+', ' ', 'g')), 'A') ||
    setweight(to_tsvector('prx_english', regexp_replace(content, '[^[:alnum:]]+', ' ', 'g')), 'B') ||
    setweight(to_tsvector('prx_english', regexp_replace(category, '[^[:alnum:]]+', ' ', 'g')), 'C')
  ) STORED
);
CREATE INDEX memories_fts ON memories USING GIN (fts);
CREATE INDEX memories_updated ON memories (updated_at DESC, seq DESC);
CREATE INDEX memories_session ON memories (session_id, updated_at);
CREATE TABLE memory_count (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), n BIGINT NOT NULL);
INSERT INTO memory_count (n) VALUES (0);
CREATE FUNCTION memory_count_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN UPDATE memory_count SET n = n + 1; ELSE UPDATE memory_count SET n = n - 1; END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER memories_counted AFTER INSERT OR DELETE ON memories FOR EACH ROW EXECUTE FUNCTION memory_count_bump();`,
  },
  { version: 3, name: "memory embeddings (pgvector)", sql: VECTOR_MIGRATION_SQL, requires: "vector" },
  {
    version: 4,
    name: "gateway pairing code",
    sql: `
CREATE TABLE gateway_pairing_code (
  one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
  code_sha256 TEXT NOT NULL,
  expires_at DOUBLE PRECISION NOT NULL,
  wrong INTEGER NOT NULL
);`,
  },
  { version: 5, name: "channel last error time", sql: "ALTER TABLE channel_status ADD COLUMN last_error_at DOUBLE PRECISION;" },
  {
    // The one-row counter took a new row version per insert (31 MB by a million inserts in few transactions) and
    // serialized writers; recall now counts at most what it needs (postgres-recall.ts). With fastupdate the GIN index
    // queued new entries in a pending list every search reads in full, so the planner preferred a sequential scan.
    version: 6,
    name: "memory count without a counter row, full-text index without a pending list",
    sql: `
DROP TRIGGER memories_counted ON memories;
DROP FUNCTION memory_count_bump();
DROP TABLE memory_count;
ALTER INDEX memories_fts SET (fastupdate = off);
SELECT gin_clean_pending_list('memories_fts'::regclass);
ANALYZE memories;`,
  },
  { version: 7, name: "session message counts", sql: SESSION_COUNTS_SQL },
  { version: 8, name: "session search index", sql: SESSION_SEARCH_SQL },
  {
    version: 9,
    name: "media store",
    sql: `
ALTER TABLE session_messages ADD COLUMN media TEXT;
CREATE TABLE media_blobs (
  sha256 TEXT PRIMARY KEY,
  mime TEXT NOT NULL,
  size INTEGER NOT NULL,
  data BYTEA NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE session_media (
  session_id TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  PRIMARY KEY (session_id, sha256)
);
CREATE INDEX session_media_blob ON session_media (sha256);`,
  },
  { version: 10, name: "memory word counts", sql: MEMORY_TERMS_SQL },
  {
    version: 11,
    name: "stored responses",
    sql: `
CREATE TABLE gateway_responses (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  response TEXT NOT NULL,
  input_items TEXT NOT NULL,
  context TEXT NOT NULL
);`,
  },
  {
    version: 12,
    name: "session summaries",
    sql: `
CREATE TABLE session_summaries (
  session_id TEXT NOT NULL,
  through_seq INTEGER NOT NULL,
  from_seq INTEGER NOT NULL,
  content TEXT NOT NULL,
  model TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, through_seq)
);`,
  },
  {
    // usage per day and scope: kind 'all' (key ''), 'channel', 'sender', 'model', 'session' (see storage/types.ts)
    version: 13,
    name: "usage per message and kept daily totals",
    sql: `
ALTER TABLE session_messages ADD COLUMN usage TEXT;
CREATE TABLE usage_totals (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  day TEXT NOT NULL,
  input_tokens BIGINT NOT NULL,
  output_tokens BIGINT NOT NULL,
  cached_input_tokens BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  calls BIGINT NOT NULL,
  PRIMARY KEY (kind, key, day)
);
CREATE INDEX usage_totals_day ON usage_totals (kind, day);`,
  },
  {
    version: 14,
    name: "tool approvals, audit log and channel owners",
    sql: `
ALTER TABLE channel_pairings ADD COLUMN owner BOOLEAN NOT NULL DEFAULT false;
CREATE TABLE tool_approvals (
  id TEXT PRIMARY KEY,
  code TEXT NOT NULL,
  session_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  chat_key TEXT,
  sender TEXT,
  tool TEXT NOT NULL,
  risk TEXT NOT NULL,
  args_sha256 TEXT NOT NULL,
  args_preview TEXT NOT NULL,
  state TEXT NOT NULL,
  decided_by TEXT,
  reason TEXT,
  created_at DOUBLE PRECISION NOT NULL,
  expires_at DOUBLE PRECISION NOT NULL,
  decided_at DOUBLE PRECISION
);
CREATE INDEX tool_approvals_state ON tool_approvals (state, created_at);
CREATE INDEX tool_approvals_session ON tool_approvals (session_id, tool) WHERE state = 'allow_session';
CREATE TABLE tool_audit (
  id BIGSERIAL PRIMARY KEY,
  at DOUBLE PRECISION NOT NULL,
  session_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  sender TEXT,
  tool TEXT NOT NULL,
  risk TEXT NOT NULL,
  args_sha256 TEXT NOT NULL,
  args_preview TEXT NOT NULL,
  decision TEXT NOT NULL,
  decided_by TEXT NOT NULL,
  outcome TEXT NOT NULL,
  error TEXT,
  duration_ms DOUBLE PRECISION NOT NULL
);
CREATE INDEX tool_audit_at ON tool_audit (at);
CREATE INDEX tool_audit_tool ON tool_audit (tool, at);`,
  },
  { version: 15, name: "stored responses by age", sql: "CREATE INDEX gateway_responses_created ON gateway_responses (created_at);" },
  {
    version: 16,
    name: "session links",
    sql: `
CREATE TABLE session_links (
  child_id TEXT PRIMARY KEY,
  parent_id TEXT NOT NULL,
  depth INTEGER NOT NULL,
  created_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX session_links_parent ON session_links (parent_id, created_at);`,
  },
  {
    version: 17,
    name: "agent of sessions and audit entries",
    sql: `
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT 'main';
ALTER TABLE tool_audit ADD COLUMN agent TEXT NOT NULL DEFAULT 'main';
CREATE INDEX sessions_agent_updated ON sessions (agent, updated_at DESC);`,
  },
  {
    version: 18,
    name: "cron tool jobs and their runs",
    sql: `
CREATE TABLE cron_jobs (
  id TEXT PRIMARY KEY,
  name TEXT,
  session_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  chat_id TEXT,
  thread_id TEXT,
  owner TEXT,
  schedule TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at DOUBLE PRECISION NOT NULL,
  run_requested_at DOUBLE PRECISION
);
CREATE INDEX cron_jobs_session ON cron_jobs (session_id, created_at);
CREATE TABLE cron_job_runs (
  seq BIGSERIAL PRIMARY KEY,
  job_id TEXT NOT NULL,
  at DOUBLE PRECISION NOT NULL,
  slot DOUBLE PRECISION,
  ok BOOLEAN NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX cron_job_runs_job ON cron_job_runs (job_id, seq);`,
  },
  { version: 19, name: "session lease start in one statement", sql: LEASE_START_SQL },
  { version: 20, name: "a leased turn's writes and its lease's end in one statement", sql: TURN_END_SQL },
  { version: 21, name: "a leased turn's messages counted in its own write of the session", sql: TURN_COUNT_SQL },
  { version: 22, name: "session lease start that says whether memory holds entries", sql: TURN_START_SQL },
  {
    version: 23,
    name: "the session message an inbox row's started mark was written with",
    sql: "ALTER TABLE channel_inbox ADD COLUMN started_seq BIGINT;",
  },
];

const LEDGER = `CREATE TABLE IF NOT EXISTS prx_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

function failed(what: string, cause: unknown): PrxError {
  return new PrxError("STORAGE", `${what}: ${errorMessage(cause)}`, {
    cause,
    hint: "check the PostgreSQL URL in [storage] url_env and that its user may create tables (prx storage status)",
  });
}

/**
 * Sets the migrating connection's search_path again now that its schema exists. The path a connection starts with
 * names a schema that may not exist yet (a brand-new one, created by whichever opener takes the lock first); then
 * PostgreSQL creates in the next schema of the path, public, for as long as that session's resolved path stands. Set
 * here, after CREATE SCHEMA and under the lock, the path resolves to the schema whatever the connection started with;
 * current_schema() confirms it before anything is created.
 */
async function useSchema(conn: ReservedSQL, schema: string): Promise<void> {
  const rows = await conn.unsafe("SELECT set_config('search_path', $1, false) AS path, current_schema() AS current", [searchPathFor(schema)]);
  const current = (rows[0] as { current: string | null }).current;
  if (current !== schema) {
    throw new PrxError("STORAGE", `cannot migrate PostgreSQL schema "${schema}": the migrating connection resolves to schema "${current ?? "(none)"}"`, {
      hint: `check that the database user may use schema "${schema}" (GRANT USAGE, CREATE ON SCHEMA "${schema}") and that [storage] schema names it`,
    });
  }
}

/** The ledger must be the schema's own: migrations recorded anywhere else would be applied to the wrong place. */
async function checkLedgerIn(conn: ReservedSQL, schema: string): Promise<void> {
  const rows = await conn.unsafe("SELECT to_regclass(format('%I.prx_migrations', $1::text)) = to_regclass('prx_migrations') AS own", [schema]);
  if ((rows[0] as { own: boolean | null }).own !== true) {
    throw new PrxError("STORAGE", `cannot migrate PostgreSQL schema "${schema}": its migration ledger ("${schema}".prx_migrations) is not the one the connection sees`, {
      hint: `nothing was migrated; check the search_path of the database user (ALTER ROLE ... RESET search_path) and that schema "${schema}" exists`,
    });
  }
}

/**
 * Apply every pending migration, each in its own transaction, holding the migration advisory lock on one reserved
 * connection. Returns the versions applied by this call.
 */
export async function migratePg(sql: SQL, schema: string): Promise<number[]> {
  let conn;
  try {
    conn = await sql.reserve();
  } catch (cause) {
    throw failed("cannot connect to PostgreSQL", cause);
  }
  const applied: number[] = [];
  try {
    await conn.unsafe(`SELECT pg_advisory_lock(${LOCK})`);
    try {
      await conn.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await useSchema(conn, schema);
      await conn.unsafe(LEDGER);
      await checkLedgerIn(conn, schema);
      const done = new Set((await conn.unsafe("SELECT version FROM prx_migrations")).map((r: { version: number }) => r.version));
      // the server's catalog is asked only while a pgvector migration is still to apply
      let offered: boolean | undefined;
      for (const migration of PG_MIGRATIONS) {
        if (done.has(migration.version)) continue;
        if (migration.requires === "vector" && !(offered ??= await vectorOffered(conn))) continue;
        await conn.unsafe("BEGIN");
        try {
          // Checked again inside the transaction: where session advisory locks do not keep two openers apart (one
          // backend serving several connections, as PGlite does), the transaction that applied it has committed.
          const appliedMeanwhile = await conn.unsafe("SELECT 1 FROM prx_migrations WHERE version = $1", [migration.version]);
          if (appliedMeanwhile.length > 0 || (migration.requires === "vector" && !(await installVector(conn)))) {
            await conn.unsafe("ROLLBACK");
            continue;
          }
          await conn.unsafe(migration.sql);
          await conn.unsafe("INSERT INTO prx_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
            migration.version,
            migration.name,
            new Date().toISOString(),
          ]);
          await conn.unsafe("COMMIT");
        } catch (cause) {
          await conn.unsafe("ROLLBACK");
          throw failed(`migration ${migration.version} (${migration.name}) failed`, cause);
        }
        applied.push(migration.version);
      }
    } finally {
      await conn.unsafe(`SELECT pg_advisory_unlock(${LOCK})`);
    }
  } catch (cause) {
    throw cause instanceof PrxError ? cause : failed("cannot migrate the PostgreSQL schema", cause);
  } finally {
    conn.release();
  }
  return applied;
}

export async function pgStatus(sql: SQL): Promise<MigrationStatus> {
  try {
    const exists = await sql.unsafe("SELECT to_regclass('prx_migrations') IS NOT NULL AS present");
    const applied = exists[0].present
      ? ((await sql.unsafe("SELECT version, name, applied_at FROM prx_migrations ORDER BY version")) as MigrationStatus["applied"])
      : [];
    const have = new Set(applied.map((a) => a.version));
    const offered = await vectorOffered(sql);
    const applicable = PG_MIGRATIONS.filter((m) => m.requires !== "vector" || offered || have.has(m.version));
    return {
      backend: "postgres",
      version: applied.at(-1)?.version ?? 0,
      latest: applicable.at(-1)!.version,
      applied: [...applied],
      pending: applicable.filter((m) => !have.has(m.version)).map(({ version, name }) => ({ version, name })),
    };
  } catch (cause) {
    throw failed("cannot read the PostgreSQL migration status", cause);
  }
}

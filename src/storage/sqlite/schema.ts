import { diskFullError } from "./disk-full.ts";
import type { Database } from "bun:sqlite";
import { errorMessage, PrxError } from "../../core/errors.ts";
import type { MigrationStatus } from "../types.ts";

/**
 * The workspace SQLite database's tables of the stores in src/storage, as versioned migrations recorded in
 * `storage_migrations`. They run in one write transaction (BEGIN IMMEDIATE), so two processes opening a workspace at
 * once migrate it once. Version 1 is the schema prx had before migrations were versioned: every statement is
 * idempotent, so an existing database adopts it unchanged. (Memory's FTS5 tables are made by memory-schema.ts, remote
 * plugins' by remote-plugins.ts, when their store first opens.)
 */
export const SQLITE_SESSIONS_DDL = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS session_messages (
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
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated_at DESC);`;

const BASE = `${SQLITE_SESSIONS_DDL}
CREATE TABLE IF NOT EXISTS gateway_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS gateway_idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  body_sha256 TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  response TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS gateway_idempotency_expiry ON gateway_idempotency (expires_at);
CREATE TABLE IF NOT EXISTS plugin_kv (
  plugin TEXT NOT NULL,
  key TEXT NOT NULL,
  value BLOB NOT NULL,
  PRIMARY KEY (plugin, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cron_state (
  job_id TEXT PRIMARY KEY,
  schedule TEXT NOT NULL,
  last_slot INTEGER NOT NULL,
  removed_at INTEGER,
  fires INTEGER NOT NULL DEFAULT 0,
  last_fired_at INTEGER,
  last_finished_at INTEGER,
  last_ok INTEGER,
  last_error TEXT
);
CREATE TABLE IF NOT EXISTS channel_cursor (
  channel TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS channel_inbox (
  channel TEXT NOT NULL,
  message_id TEXT NOT NULL,
  chat_key TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL,
  reply TEXT,
  parts_sent INTEGER NOT NULL DEFAULT 0,
  received_at INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (channel, message_id)
);
CREATE INDEX IF NOT EXISTS channel_inbox_open ON channel_inbox (channel, state, seq);
CREATE INDEX IF NOT EXISTS channel_inbox_age ON channel_inbox (received_at);
CREATE TABLE IF NOT EXISTS channel_status (
  channel TEXT PRIMARY KEY,
  pid INTEGER,
  state TEXT NOT NULL,
  last_inbound INTEGER,
  last_outbound INTEGER,
  last_error TEXT,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS channel_pairings (
  channel TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  display TEXT NOT NULL,
  code TEXT,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  approved_at INTEGER,
  PRIMARY KEY (channel, sender_id)
);
CREATE UNIQUE INDEX IF NOT EXISTS channel_pairings_code ON channel_pairings (code) WHERE code IS NOT NULL;`;

/**
 * `sessions.message_count` is kept by triggers on `session_messages`, in the transaction of the insert or delete,
 * so every writer (any process sharing the workspace, an older prx included) keeps it right and a list never counts.
 */
const SESSION_COUNTS = `
UPDATE sessions SET message_count = (SELECT count(*) FROM session_messages m WHERE m.session_id = sessions.id);
CREATE TRIGGER IF NOT EXISTS session_messages_added AFTER INSERT ON session_messages BEGIN
  UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id;
END;
CREATE TRIGGER IF NOT EXISTS session_messages_removed AFTER DELETE ON session_messages BEGIN
  UPDATE sessions SET message_count = message_count - 1 WHERE id = old.session_id;
END;`;

/**
 * `sessions_search` is an FTS5 trigram index of each session's title and id (case-folded), kept by triggers, so a
 * session search looks up the sessions holding the text's trigrams instead of reading every title. It holds its own
 * copy of both (a few hundred bytes a session); `sessions.search_rowid` points at a session's row in it, because
 * `sessions` has no INTEGER PRIMARY KEY and VACUUM may renumber its rowids.
 */
const SESSION_SEARCH = `
CREATE VIRTUAL TABLE IF NOT EXISTS sessions_search USING fts5(title, id, tokenize = 'trigram');
DELETE FROM sessions_search;
INSERT INTO sessions_search (rowid, title, id) SELECT rowid, title, id FROM sessions;
UPDATE sessions SET search_rowid = rowid;
CREATE TRIGGER IF NOT EXISTS sessions_search_added AFTER INSERT ON sessions BEGIN
  INSERT INTO sessions_search (title, id) VALUES (new.title, new.id);
  UPDATE sessions SET search_rowid = last_insert_rowid() WHERE id = new.id;
END;
CREATE TRIGGER IF NOT EXISTS sessions_search_retitled AFTER UPDATE OF title ON sessions WHEN new.title IS NOT old.title BEGIN
  UPDATE sessions_search SET title = new.title WHERE rowid = new.search_rowid;
END;
CREATE TRIGGER IF NOT EXISTS sessions_search_removed AFTER DELETE ON sessions BEGIN
  DELETE FROM sessions_search WHERE rowid = old.search_rowid;
END;`;

/**
 * Images and audio by content hash (`media_blobs`), and which sessions' messages refer to each (`session_media`), so
 * deleting a session removes the bytes no other session refers to.
 */
const MEDIA = `
CREATE TABLE IF NOT EXISTS media_blobs (
  sha256 TEXT PRIMARY KEY,
  mime TEXT NOT NULL,
  size INTEGER NOT NULL,
  data BLOB NOT NULL,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_media (
  session_id TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  PRIMARY KEY (session_id, sha256)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS session_media_blob ON session_media (sha256);`;

const SUMMARIES = `
CREATE TABLE IF NOT EXISTS session_summaries (
  session_id TEXT NOT NULL,
  through_seq INTEGER NOT NULL,
  from_seq INTEGER NOT NULL,
  content TEXT NOT NULL,
  model TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, through_seq)
) WITHOUT ROWID;`;

/**
 * Usage totals per day (YYYY-MM-DD in the budget time zone) and scope: kind "all" (key ''), "channel", "sender"
 * ("<channel>:<user id>"), "model" ("<provider>/<model>"), "session". Budgets and usage reports read key ranges.
 */
const USAGE_TOTALS = `
CREATE TABLE IF NOT EXISTS usage_totals (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  day TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  calls INTEGER NOT NULL,
  PRIMARY KEY (kind, key, day)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS usage_totals_day ON usage_totals (kind, day);`;
const AUTONOMY = `CREATE TABLE IF NOT EXISTS tool_approvals (
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
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  decided_at INTEGER
);
CREATE INDEX IF NOT EXISTS tool_approvals_state ON tool_approvals (state, created_at);
CREATE INDEX IF NOT EXISTS tool_approvals_session ON tool_approvals (session_id, tool) WHERE state = 'allow_session';
CREATE TABLE IF NOT EXISTS tool_audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
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
  duration_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_audit_at ON tool_audit (at);
CREATE INDEX IF NOT EXISTS tool_audit_tool ON tool_audit (tool, at);`;

interface SqliteMigration {
  version: number;
  name: string;
  apply(db: Database): void;
}

function hasColumn(db: Database, table: string, column: string): boolean {
  return db
    .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`)
    .all()
    .some((c) => c.name === column);
}

export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  { version: 1, name: "base tables", apply: (db) => db.exec(BASE) },
  {
    version: 2,
    name: "cron run leases",
    apply: (db) => {
      if (!hasColumn(db, "cron_state", "lease_owner")) db.exec("ALTER TABLE cron_state ADD COLUMN lease_owner TEXT");
      if (!hasColumn(db, "cron_state", "lease_until")) db.exec("ALTER TABLE cron_state ADD COLUMN lease_until INTEGER");
      if (!hasColumn(db, "cron_state", "fence")) db.exec("ALTER TABLE cron_state ADD COLUMN fence INTEGER NOT NULL DEFAULT 0");
    },
  },
  {
    version: 3,
    name: "gateway pairing code",
    apply: (db) =>
      db.exec(`CREATE TABLE IF NOT EXISTS gateway_pairing_code (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  code_sha256 TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  wrong INTEGER NOT NULL
)`),
  },
  {
    version: 4,
    name: "channel last error time",
    apply: (db) => {
      if (!hasColumn(db, "channel_status", "last_error_at")) db.exec("ALTER TABLE channel_status ADD COLUMN last_error_at INTEGER");
    },
  },
  {
    version: 5,
    name: "session message counts",
    apply: (db) => {
      if (!hasColumn(db, "sessions", "message_count")) db.exec("ALTER TABLE sessions ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0");
      db.exec(SESSION_COUNTS);
    },
  },
  {
    version: 6,
    name: "session search index",
    apply: (db) => {
      if (!hasColumn(db, "sessions", "search_rowid")) db.exec("ALTER TABLE sessions ADD COLUMN search_rowid INTEGER");
      db.exec(SESSION_SEARCH);
    },
  },
  {
    version: 7,
    name: "media store",
    apply: (db) => {
      if (!hasColumn(db, "session_messages", "media")) db.exec("ALTER TABLE session_messages ADD COLUMN media TEXT");
      db.exec(MEDIA);
    },
  },
  {
    version: 8,
    name: "stored responses",
    apply: (db) =>
      db.exec(`CREATE TABLE IF NOT EXISTS gateway_responses (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  response TEXT NOT NULL,
  input_items TEXT NOT NULL,
  context TEXT NOT NULL
)`),
  },
  { version: 9, name: "session summaries", apply: (db) => db.exec(SUMMARIES) },
  {
    version: 10,
    name: "usage per message and kept daily totals",
    apply: (db) => {
      if (!hasColumn(db, "session_messages", "usage")) db.exec("ALTER TABLE session_messages ADD COLUMN usage TEXT");
      db.exec(USAGE_TOTALS);
    },
  },
  {
    version: 11,
    name: "tool approvals, audit log and channel owners",
    apply: (db) => {
      if (!hasColumn(db, "channel_pairings", "owner")) db.exec("ALTER TABLE channel_pairings ADD COLUMN owner INTEGER NOT NULL DEFAULT 0");
      db.exec(AUTONOMY);
    },
  },
  {
    version: 12,
    name: "stored responses by age",
    apply: (db) => db.exec("CREATE INDEX IF NOT EXISTS gateway_responses_created ON gateway_responses (created_at)"),
  },
  {
    version: 13,
    name: "session links",
    apply: (db) =>
      db.exec(`CREATE TABLE IF NOT EXISTS session_links (
  child_id TEXT PRIMARY KEY,
  parent_id TEXT NOT NULL,
  depth INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS session_links_parent ON session_links (parent_id, created_at);`),
  },
  {
    version: 14,
    name: "agent of sessions and audit entries",
    apply: (db) => {
      if (!hasColumn(db, "sessions", "agent")) db.exec("ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT 'main'");
      if (!hasColumn(db, "tool_audit", "agent")) db.exec("ALTER TABLE tool_audit ADD COLUMN agent TEXT NOT NULL DEFAULT 'main'");
      db.exec("CREATE INDEX IF NOT EXISTS sessions_agent_updated ON sessions (agent, updated_at DESC)");
    },
  },
  { version: 15, name: "cron tool jobs and their runs", apply: (db) => db.exec(CRON_JOBS) },
  {
    version: 16,
    name: "the session message an inbox row's started mark was written with",
    apply: (db) => {
      if (!hasColumn(db, "channel_inbox", "started_seq")) db.exec("ALTER TABLE channel_inbox ADD COLUMN started_seq INTEGER");
    },
  },
];

const CRON_JOBS = `CREATE TABLE IF NOT EXISTS cron_jobs (
  id TEXT PRIMARY KEY,
  name TEXT,
  session_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  chat_id TEXT,
  thread_id TEXT,
  owner TEXT,
  schedule TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at REAL NOT NULL,
  run_requested_at REAL
);
CREATE INDEX IF NOT EXISTS cron_jobs_session ON cron_jobs (session_id, created_at);
CREATE TABLE IF NOT EXISTS cron_job_runs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  at REAL NOT NULL,
  slot REAL,
  ok INTEGER NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cron_job_runs_job ON cron_job_runs (job_id, seq);`;

const LEDGER = `CREATE TABLE IF NOT EXISTS storage_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

const migrated = new WeakSet<Database>();

function appliedVersions(db: Database): Set<number> {
  return new Set(db.query<{ version: number }, []>("SELECT version FROM storage_migrations").all().map((r) => r.version));
}

/**
 * Whether the ledger lacks a migration, read without a write transaction: opening a migrated database (every start
 * but the first) takes no write lock and waits for no other process's writes.
 */
function pending(db: Database): boolean {
  const ledger = db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'storage_migrations'").get();
  if (!ledger?.n) return true;
  const done = appliedVersions(db);
  return SQLITE_MIGRATIONS.some((migration) => !done.has(migration.version));
}

/** Whether every migration has run on this handle (migrateSqlite, or found stamped: schema-stamp.ts). */
export function migratedHandle(db: Database): boolean {
  return migrated.has(db);
}

/** A handle whose database carries the current schema stamp: every migration is applied, nothing to check. */
export function migrationsInPlace(db: Database): void {
  migrated.add(db);
}

/**
 * Apply every pending migration (once per handle). What is pending is decided again inside one write transaction
 * (BEGIN IMMEDIATE), so two processes opening a workspace at once migrate it once.
 */
export function migrateSqlite(db: Database): number {
  if (migrated.has(db)) return 0;
  let applied = 0;
  try {
    if (pending(db)) applied = migrateLocked(db);
  } catch (cause) {
    const full = db.filename ? diskFullError(db.filename, cause, "updating the workspace database to this version of prx") : null;
    if (full) throw full;
    throw new PrxError("STORAGE", `cannot migrate the workspace database: ${errorMessage(cause)}`, {
      cause,
      hint: "check that data/prx.db is writable and not corrupt (prx doctor)",
    });
  }
  migrated.add(db);
  return applied;
}

function migrateLocked(db: Database): number {
  let applied = 0;
  db.transaction(() => {
    db.exec(LEDGER);
    const done = appliedVersions(db);
    for (const migration of SQLITE_MIGRATIONS) {
      if (done.has(migration.version)) continue;
      migration.apply(db);
      db.query("INSERT INTO storage_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
      applied++;
    }
  }).immediate();
  return applied;
}

export function sqliteStatus(db: Database): MigrationStatus {
  db.exec(LEDGER);
  const applied = db
    .query<{ version: number; name: string; applied_at: string }, []>(
      "SELECT version, name, applied_at FROM storage_migrations ORDER BY version",
    )
    .all();
  const have = new Set(applied.map((a) => a.version));
  return {
    backend: "sqlite",
    version: applied.at(-1)?.version ?? 0,
    latest: SQLITE_MIGRATIONS.at(-1)!.version,
    applied,
    pending: SQLITE_MIGRATIONS.filter((m) => !have.has(m.version)).map(({ version, name }) => ({ version, name })),
  };
}

import type { Database } from "bun:sqlite";
import { PrxError } from "../../core/errors.ts";
import { ensureSchema } from "./database.ts";

/**
 * `memories` holds the data; `memories_fts` is an FTS5 external-content index over key, content and category,
 * kept in sync by triggers so every writer (any process sharing the workspace database) updates it.
 * `seq` is an explicit INTEGER PRIMARY KEY so VACUUM can never renumber the rowids the index points at.
 * `private` (0/1) keeps an entry out of auto-recall; databases made before it existed get it by migration.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS memories (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  key TEXT NOT NULL UNIQUE,
  content TEXT NOT NULL,
  category TEXT NOT NULL,
  session_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  private INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS memories_updated ON memories(updated_at);
CREATE INDEX IF NOT EXISTS memories_session ON memories(session_id, updated_at);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
  key, content, category,
  content='memories', content_rowid='seq',
  tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, key, content, category) VALUES (new.seq, new.key, new.content, new.category);
END;
CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, key, content, category)
    VALUES ('delete', old.seq, old.key, old.content, old.category);
END;
CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, key, content, category)
    VALUES ('delete', old.seq, old.key, old.content, old.category);
  INSERT INTO memories_fts(rowid, key, content, category) VALUES (new.seq, new.key, new.content, new.category);
END;
`;

function hasPrivateColumn(db: Database): boolean {
  return db
    .query<{ name: string }, []>("SELECT name FROM pragma_table_info('memories')")
    .all()
    .some((column) => column.name === "private");
}

/**
 * Adds `private` to a memories table made by an earlier version. The check and the ALTER run in one write
 * transaction, so two processes opening an old database at once migrate it once.
 */
function migratePrivateColumn(db: Database): void {
  if (hasPrivateColumn(db)) return;
  db.transaction(() => {
    if (!hasPrivateColumn(db)) db.exec("ALTER TABLE memories ADD COLUMN private INTEGER NOT NULL DEFAULT 0");
  }).immediate();
}

/**
 * `memory_stats` holds the entry count in one row, kept by triggers in the transaction of every insert and delete
 * (any process, any prx version that writes the file), so recall reads it by primary key instead of counting.
 */
const COUNTER_DDL = `
CREATE TABLE IF NOT EXISTS memory_stats (one INTEGER PRIMARY KEY CHECK (one = 1), entries INTEGER NOT NULL);
INSERT INTO memory_stats (one, entries) SELECT 1, count(*) FROM memories WHERE NOT EXISTS (SELECT 1 FROM memory_stats);
CREATE TRIGGER IF NOT EXISTS memories_counted_ai AFTER INSERT ON memories BEGIN
  UPDATE memory_stats SET entries = entries + 1 WHERE one = 1;
END;
CREATE TRIGGER IF NOT EXISTS memories_counted_ad AFTER DELETE ON memories BEGIN
  UPDATE memory_stats SET entries = entries - 1 WHERE one = 1;
END;
`;

/** True when every trigger named exists (the last statement of a DDL that adds them). */
function hasTriggers(db: Database, names: readonly string[]): boolean {
  const found = db
    .query<{ n: number }, { names: string }>(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name IN (SELECT value FROM json_each($names))",
    )
    .get({ names: JSON.stringify(names) });
  return found?.n === names.length;
}

/**
 * Run `ddl` on a database that lacks its `triggers`: the check and the DDL (its backfill of existing rows included)
 * are one write transaction, so no write of another process falls between them and two processes add them once.
 */
function addTriggered(db: Database, triggers: readonly string[], ddl: string): void {
  if (hasTriggers(db, triggers)) return;
  db.transaction(() => {
    if (!hasTriggers(db, triggers)) db.exec(ddl);
  }).immediate();
}

/**
 * Memory's vectors (hybrid recall, see memory-vectors.ts), plain tables so every process can write the memories
 * whether or not it loaded sqlite-vec: `memory_vector_spaces` names each (model, dimension) once; `memory_vectors`
 * holds an entry's vector (int8, see memory-vectors.ts), its space and the entry revision (`updated_at`) it was
 * computed for; `memory_vector_bits` its 768-bit code (memory-vectors.ts, the table recall scans, kept apart so a
 * scan reads 96 bytes an entry, not a page); `memory_vector_pending` the entries waiting for a current vector,
 * kept by triggers on every write of a key or content (any process, any prx version that has the triggers). The
 * triggers test for the row rather than INSERT OR IGNORE: an upsert's conflict handling overrides a trigger's.
 */
const VECTOR_DDL = `
CREATE TABLE IF NOT EXISTS memory_vector_spaces (
  space INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  dims INTEGER NOT NULL CHECK (dims > 0),
  UNIQUE (model, dims)
);
CREATE TABLE IF NOT EXISTS memory_vectors (
  seq INTEGER PRIMARY KEY,
  space INTEGER NOT NULL REFERENCES memory_vector_spaces(space),
  revision TEXT NOT NULL,
  embedding BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS memory_vector_bits (
  seq INTEGER PRIMARY KEY,
  space INTEGER NOT NULL,
  bits BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS memory_vector_pending (seq INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO memory_vector_pending (seq) SELECT seq FROM memories;
CREATE TRIGGER IF NOT EXISTS memories_vector_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memory_vector_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM memory_vector_pending WHERE seq = new.seq);
END;
CREATE TRIGGER IF NOT EXISTS memories_vector_au AFTER UPDATE OF key, content ON memories BEGIN
  INSERT INTO memory_vector_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM memory_vector_pending WHERE seq = new.seq);
END;
CREATE TRIGGER IF NOT EXISTS memories_vector_ad AFTER DELETE ON memories BEGIN
  DELETE FROM memory_vector_pending WHERE seq = old.seq;
  DELETE FROM memory_vectors WHERE seq = old.seq;
  DELETE FROM memory_vector_bits WHERE seq = old.seq;
END;
`;

/**
 * What ensureMemorySchema makes, as text: the schema stamp (schema-stamp.ts) is derived from it, so a change to any of
 * it (or a new piece added here) tells every stamped database to be checked again.
 */
export const MEMORY_SCHEMA_TEXT: readonly string[] = [DDL, "private INTEGER NOT NULL DEFAULT 0", COUNTER_DDL, VECTOR_DDL];

const migrated = new WeakSet<Database>();

/** A handle whose database carries the current schema stamp: its memory tables are in place, nothing to check. */
export function memorySchemaInPlace(db: Database): void {
  migrated.add(db);
}

/** Create or migrate the memory tables (once per database handle). */
export function ensureMemorySchema(db: Database): void {
  if (migrated.has(db)) return;
  try {
    ensureSchema(db, "memory", DDL);
    migratePrivateColumn(db);
    // the entry counter, then the vector tables and the embedding queue, on databases made without them
    addTriggered(db, ["memories_counted_ai", "memories_counted_ad"], COUNTER_DDL);
    addTriggered(db, ["memories_vector_ai", "memories_vector_au", "memories_vector_ad"], VECTOR_DDL);
    migrated.add(db);
  } catch (cause) {
    throw new PrxError("MEMORY", `cannot create the memory tables: ${(cause as Error).message}`, {
      cause,
      hint: "the SQLite build must include FTS5; check the database file with prx doctor",
    });
  }
}

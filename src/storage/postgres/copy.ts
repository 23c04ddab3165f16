import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { STORAGE_COPY_BATCH } from "../limits.ts";
import { ensureMemorySchema } from "../sqlite/memory-schema.ts";
import { SqliteMemoryVectorStore } from "../sqlite/memory-vectors.ts";
import { migrateSqlite } from "../sqlite/schema.ts";
import { pg } from "./connect.ts";

/** One table `prx storage copy` moves: its columns (both schemas name them alike) and how to read it in order. */
interface TableCopy {
  name: string;
  columns: readonly string[];
  /** SQLite 0/1 columns that are booleans in PostgreSQL. */
  booleans?: readonly string[];
  order: string;
  /**
   * A serial key PostgreSQL numbers by itself but SQLite's table needs given (NOT NULL): the column and the SQL that
   * numbers a row copied into SQLite, after the rows copied before it (`?1` is the row's first column).
   */
  sqliteSerial?: { column: string; next: string };
}

/**
 * Every table of a workspace, parents first. Serial keys (memories.seq, channel_inbox.seq) are not copied: rows are
 * inserted in their order and PostgreSQL numbers them. Rows whose key exists already are left as they are, so a
 * copy that stopped half-way can be run again.
 */
const TABLES: readonly TableCopy[] = [
  { name: "sessions", columns: ["id", "title", "channel", "agent", "created_at", "updated_at"], order: "created_at, id" },
  {
    name: "session_messages",
    columns: ["session_id", "seq", "role", "content", "tool_calls", "tool_call_id", "name", "created_at", "usage"],
    order: "session_id, seq",
  },
  {
    name: "session_summaries",
    columns: ["session_id", "through_seq", "from_seq", "content", "model", "created_at"],
    order: "session_id, through_seq",
  },
  { name: "session_links", columns: ["child_id", "parent_id", "depth", "created_at"], order: "created_at, child_id" },
  {
    name: "usage_totals",
    columns: ["kind", "key", "day", "input_tokens", "output_tokens", "cached_input_tokens", "cost_usd", "calls"],
    order: "kind, key, day",
  },
  {
    name: "memories",
    columns: ["id", "key", "content", "category", "session_id", "created_at", "updated_at", "private"],
    booleans: ["private"],
    order: "seq",
  },
  {
    name: "gateway_tokens",
    columns: ["id", "name", "token_sha256", "created_at", "last_used_at", "revoked"],
    booleans: ["revoked"],
    order: "created_at, id",
  },
  {
    name: "gateway_idempotency",
    columns: ["scope", "key", "body_sha256", "state", "status", "response", "created_at", "expires_at"],
    order: "created_at",
  },
  {
    name: "gateway_responses",
    columns: ["id", "scope", "created_at", "response", "input_items", "context"],
    order: "created_at, id",
  },
  { name: "plugin_kv", columns: ["plugin", "key", "value"], order: "plugin, key" },
  {
    name: "cron_state",
    columns: ["job_id", "schedule", "last_slot", "removed_at", "fires", "last_fired_at", "last_finished_at", "last_ok", "last_error"],
    booleans: ["last_ok"],
    order: "job_id",
  },
  {
    name: "cron_jobs",
    columns: ["id", "name", "session_id", "channel", "chat_id", "thread_id", "owner", "schedule", "payload", "created_at", "run_requested_at"],
    order: "created_at, id",
  },
  { name: "channel_cursor", columns: ["channel", "value", "updated_at"], order: "channel" },
  {
    name: "channel_inbox",
    columns: ["channel", "message_id", "chat_key", "payload", "state", "reply", "parts_sent", "received_at", "started_seq"],
    order: "seq",
    sqliteSerial: { column: "seq", next: "(SELECT COALESCE(MAX(seq), 0) + 1 FROM channel_inbox WHERE channel = ?1)" },
  },
  {
    name: "channel_status",
    columns: ["channel", "pid", "state", "last_inbound", "last_outbound", "last_error", "last_error_at", "updated_at"],
    order: "channel",
  },
  {
    name: "channel_pairings",
    columns: ["channel", "sender_id", "display", "code", "state", "created_at", "approved_at"],
    order: "channel, sender_id",
  },
];

export interface CopiedTable {
  table: string;
  /** Rows read from SQLite. */
  read: number;
  /** Rows inserted into PostgreSQL (the others were there already). */
  inserted: number;
}

/** Every batch `read(offset, limit)` returns, STORAGE_COPY_BATCH rows at a time, until a short one. */
async function* batches<T>(read: (offset: number, limit: number) => T[] | Promise<T[]>): AsyncGenerator<T[]> {
  for (let offset = 0; ; offset += STORAGE_COPY_BATCH) {
    const rows = await read(offset, STORAGE_COPY_BATCH);
    if (rows.length > 0) yield rows;
    if (rows.length < STORAGE_COPY_BATCH) return;
  }
}

function sqliteHas(db: Database, table: string): boolean {
  return db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== null;
}

/** Copy every table of the workspace SQLite database into migrated PostgreSQL storage, batch by batch. */
export async function copySqliteToPg(db: Database, sql: SQL, onTable?: (copied: CopiedTable) => void): Promise<CopiedTable[]> {
  const report: CopiedTable[] = [];
  for (const table of TABLES) {
    const copied: CopiedTable = { table: table.name, read: 0, inserted: 0 };
    if (sqliteHas(db, table.name)) {
      const select = db.query<Record<string, unknown>, [number, number]>(
        `SELECT ${table.columns.join(", ")} FROM ${table.name} ORDER BY ${table.order} LIMIT ? OFFSET ?`,
      );
      for await (const rows of batches((offset, limit) => select.all(limit, offset))) {
        copied.read += rows.length;
        copied.inserted += await insertBatch(sql, table, rows);
      }
      // fresh statistics for the planner after a bulk load (recall's term counts and size estimate use them)
      if (copied.inserted > 0) await sql.unsafe(`ANALYZE ${table.name}`);
    }
    report.push(copied);
    onTable?.(copied);
  }
  return withVectors(report, await copyMemoryVectors(db, sql), onTable);
}

/** `report` and the vectors' row, when there were vector tables on both sides. */
function withVectors(report: CopiedTable[], vectors: CopiedTable | null, onTable?: (copied: CopiedTable) => void): CopiedTable[] {
  if (vectors === null) return report;
  onTable?.(vectors);
  return [...report, vectors];
}

/** True when the server has memory's pgvector table (storage migration 3). */
async function pgHasEmbeddings(sql: SQL): Promise<boolean> {
  const rows = await pg("copy of memory vectors", () => sql.unsafe("SELECT to_regclass('memory_embeddings') IS NOT NULL AS present"));
  return rows[0].present === true;
}

/**
 * Memory's vectors (SQLite `memory_vectors`, int8 scaled to 127: cosine ignores the scale) into `memory_embeddings`
 * when the server has pgvector's table; only vectors of an entry's current text, for entries the copy holds with
 * that same text, so nothing is embedded again. Their entries leave the embedding queue. Null when either side has
 * no vector table.
 */
async function copyMemoryVectors(db: Database, sql: SQL): Promise<CopiedTable | null> {
  if (!sqliteHas(db, "memory_vectors") || !(await pgHasEmbeddings(sql))) return null;
  const copied: CopiedTable = { table: "memory_embeddings", read: 0, inserted: 0 };
  const select = db.query<{ id: string; model: string; dims: number; revision: string; embedding: Uint8Array }, [number, number]>(
    `SELECT m.id, s.model, s.dims, v.revision, v.embedding FROM memory_vectors v
     JOIN memories m ON m.seq = v.seq AND m.updated_at = v.revision JOIN memory_vector_spaces s ON s.space = v.space
     ORDER BY v.seq LIMIT ? OFFSET ?`,
  );
  for await (const rows of batches((offset, limit) => select.all(limit, offset))) {
    copied.read += rows.length;
    const params: unknown[] = [];
    const tuples = rows.map((row) => {
      const values = new Int8Array(row.embedding.buffer, row.embedding.byteOffset, row.embedding.byteLength);
      params.push(row.id, row.model, row.dims, row.revision, `[${Array.from(values, (x) => x / 127).join(",")}]`);
      const n = params.length;
      return `($${n - 4}, $${n - 3}, $${n - 2}::int, $${n - 1}, $${n}::vector)`;
    });
    const result = await pg("copy of memory vectors", () =>
      sql.unsafe(
        `WITH v (memory_id, model, dims, revision, embedding) AS (VALUES ${tuples.join(", ")}),
         written AS (
           INSERT INTO memory_embeddings (memory_id, model, dims, revision, embedding)
           SELECT v.* FROM v JOIN memories m ON m.id = v.memory_id AND m.updated_at = v.revision
           ON CONFLICT DO NOTHING RETURNING memory_id),
         dequeued AS (DELETE FROM memory_embedding_pending p USING written w WHERE p.memory_id = w.memory_id)
         SELECT count(*)::int AS n FROM written`,
        params,
      ),
    );
    copied.inserted += result[0].n as number;
  }
  if (copied.inserted > 0) await sql.unsafe("ANALYZE memory_embeddings");
  return copied;
}

async function insertBatch(sql: SQL, table: TableCopy, rows: Array<Record<string, unknown>>): Promise<number> {
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const slots = table.columns.map((column) => {
      const value = row[column] ?? null;
      params.push(table.booleans?.includes(column) && value !== null ? value === 1 || value === true : value);
      return `$${params.length}`;
    });
    return `(${slots.join(", ")})`;
  });
  const result = await pg(`copy of ${table.name}`, () =>
    sql.unsafe(`INSERT INTO ${table.name} (${table.columns.join(", ")}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING`, params),
  );
  return result.count;
}

/** A PostgreSQL value as the SQLite column holds it: booleans 0/1, 64-bit integers as numbers. */
function sqliteValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "bigint") return Number(value);
  return value;
}

/**
 * The other way: every table of PostgreSQL storage into the workspace SQLite database (migrated first), batch by
 * batch; rows whose key exists already are kept, so it can be run again. Memory's vectors of current entries come
 * along (codes and int8 vectors computed here: no extension needed) and their entries leave the embedding queue.
 */
export async function copyPgToSqlite(sql: SQL, db: Database, onTable?: (copied: CopiedTable) => void): Promise<CopiedTable[]> {
  migrateSqlite(db);
  ensureMemorySchema(db);
  const report: CopiedTable[] = [];
  for (const table of TABLES) {
    const copied: CopiedTable = { table: table.name, read: 0, inserted: 0 };
    const present = await pg(`copy of ${table.name}`, () => sql.unsafe("SELECT to_regclass($1) IS NOT NULL AS present", [table.name]));
    if (present[0].present === true && sqliteHas(db, table.name)) {
      const serial = table.sqliteSerial;
      const columns = serial ? [...table.columns, serial.column] : table.columns;
      const values = table.columns.map((_, i) => `?${i + 1}`);
      if (serial) values.push(serial.next);
      const insert = db.query(`INSERT OR IGNORE INTO ${table.name} (${columns.join(", ")}) VALUES (${values.join(", ")})`);
      const select = `SELECT ${table.columns.join(", ")} FROM ${table.name} ORDER BY ${table.order} LIMIT $1 OFFSET $2`;
      const read = async (offset: number, limit: number) =>
        (await pg(`copy of ${table.name}`, () => sql.unsafe(select, [limit, offset]))) as Array<Record<string, unknown>>;
      for await (const rows of batches(read)) {
        copied.read += rows.length;
        db.transaction(() => {
          for (const row of rows) {
            copied.inserted += insert.run(...(table.columns.map((column) => sqliteValue(row[column])) as never[])).changes;
          }
        })();
      }
    }
    report.push(copied);
    onTable?.(copied);
  }
  return withVectors(report, await copyPgVectors(sql, db), onTable);
}

/** `memory_embeddings` of current entries into the SQLite vector tables; null when the server has none. */
async function copyPgVectors(sql: SQL, db: Database): Promise<CopiedTable | null> {
  if (!(await pgHasEmbeddings(sql))) return null;
  const copied: CopiedTable = { table: "memory_vectors", read: 0, inserted: 0 };
  const store = new SqliteMemoryVectorStore(db);
  const entry = db.query<{ seq: number }, [string, string]>("SELECT seq FROM memories WHERE id = ? AND updated_at = ?");
  const current = db.query<{ n: number }, [number, string]>(
    "SELECT count(*) AS n FROM memory_vectors WHERE seq = ? AND revision = ?",
  );
  const read = async (offset: number, limit: number) =>
    (await pg("copy of memory vectors", () =>
      sql.unsafe(
        `SELECT e.memory_id, e.model, e.revision, e.embedding::text AS embedding FROM memory_embeddings e
         JOIN memories m ON m.id = e.memory_id AND m.updated_at = e.revision ORDER BY m.seq LIMIT $1 OFFSET $2`,
        [limit, offset],
      ),
    )) as Array<{ memory_id: string; model: string; revision: string; embedding: string }>;
  for await (const rows of batches(read)) {
    copied.read += rows.length;
    const byModel = new Map<string, Array<{ seq: number; revision: string; vector: Float32Array }>>();
    for (const row of rows) {
      const seq = entry.get(row.memory_id, row.revision)?.seq;
      // an entry SQLite holds with another text (or not at all) keeps what it has
      if (seq === undefined || (current.get(seq, row.revision)?.n ?? 0) > 0) continue;
      const vector = Float32Array.from(JSON.parse(row.embedding) as number[]);
      byModel.set(row.model, [...(byModel.get(row.model) ?? []), { seq, revision: row.revision, vector }]);
    }
    for (const [model, written] of byModel) {
      store.write(model, written);
      copied.inserted += written.length;
    }
  }
  return copied;
}

import type { ReservedSQL, SQL } from "bun";
import { errorMessage } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";

const log = createLogger("storage.migrate");

/**
 * The optional pgvector part of the PostgreSQL schema. Vector columns cannot be typed here: the dimension is only
 * known from the first embedding the provider returns, and it changes with the model. So `embedding` is an untyped
 * `vector`, each row records its model and dimension, and the memory code creates one partial HNSW index per
 * dimension (`(embedding::vector(N)) vector_cosine_ops WHERE dims = N`) the first time it stores a vector of that
 * dimension (src/memory/postgres-embeddings.ts). `revision` is the entry's updated_at the vector was computed for:
 * a vector whose revision differs from the entry's is stale and recall ignores it until the backfill replaces it.
 * `memory_embedding_pending` is the backfill's queue, kept by a trigger (every entry written, by any replica or by
 * `prx storage copy`, waits there until its current text has a vector), so a store never scans the memories.
 */
export const VECTOR_MIGRATION_SQL = `
CREATE TABLE memory_embeddings (
  memory_id TEXT PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  dims INTEGER NOT NULL CHECK (dims > 0),
  revision TEXT NOT NULL,
  embedding vector NOT NULL
);
CREATE INDEX memory_embeddings_model ON memory_embeddings (model, dims);
CREATE TABLE memory_embedding_pending (
  memory_id TEXT PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
  queued BIGSERIAL NOT NULL
);
CREATE INDEX memory_embedding_pending_queued ON memory_embedding_pending (queued);
INSERT INTO memory_embedding_pending (memory_id) SELECT id FROM memories ORDER BY seq;
CREATE FUNCTION memory_embedding_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO memory_embedding_pending (memory_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
  RETURN NEW;
END $$;
CREATE TRIGGER memories_embedding_pending AFTER INSERT OR UPDATE OF key, content ON memories
  FOR EACH ROW EXECUTE FUNCTION memory_embedding_enqueue();`;

/** What the database says of pgvector: installed in it, offered by the server, and whether memory's table exists. */
export async function vectorCatalog(conn: SQL | ReservedSQL): Promise<{ installed: boolean; available: boolean; tabled: boolean }> {
  const rows = await conn.unsafe(
    "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed, " +
      "EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available, " +
      "to_regclass('memory_embeddings') IS NOT NULL AS tabled",
  );
  const { installed, available, tabled } = rows[0] as { installed: boolean; available: boolean; tabled: boolean };
  return { installed, available, tabled };
}

/** True when pgvector is installed in the database or the server offers it (`CREATE EXTENSION vector` may work). */
export async function vectorOffered(conn: SQL | ReservedSQL): Promise<boolean> {
  const { installed, available } = await vectorCatalog(conn);
  return installed || available;
}

/**
 * Inside the migration's transaction: install pgvector (into public, on every prx connection's search_path) unless
 * it is there. False when the server refuses (no privilege): the savepoint is rolled back and the caller skips the
 * migration, so recall stays full-text search and the next start tries again.
 */
export async function installVector(conn: ReservedSQL): Promise<boolean> {
  await conn.unsafe("SAVEPOINT prx_vector");
  try {
    await conn.unsafe(
      "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN CREATE EXTENSION vector SCHEMA public; END IF; END $$",
    );
    await conn.unsafe("RELEASE SAVEPOINT prx_vector");
    return true;
  } catch (cause) {
    // not allowed to install it: the memory keeps full-text search (prx storage status says what the server offers)
    await conn.unsafe("ROLLBACK TO SAVEPOINT prx_vector");
    log.warn(
      `CREATE EXTENSION vector failed (${errorMessage(cause)}); memory recall stays full-text search. ` +
        "Install pgvector as a role allowed to (CREATE EXTENSION vector), then restart or run `prx storage migrate`",
    );
    return false;
  }
}

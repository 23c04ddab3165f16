import type { SQL } from "bun";

/** What the PostgreSQL server offers for vector recall: pgvector installed in the database, available, or absent. */
export interface VectorSupport {
  extension: "installed" | "available" | "absent";
  /** What recall uses: full-text search only (the hybrid mode needs pgvector and embeddings). */
  recall: "fts";
  detail: string;
}

/**
 * Detect pgvector (`CREATE EXTENSION vector`) on the server. Recall is full-text search (tsvector + GIN) either way
 * in this version; the answer is shown by `prx storage status` so an operator knows what the server offers.
 */
export async function detectVectorSupport(sql: SQL): Promise<VectorSupport> {
  const rows = (await sql.unsafe(
    "SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'vector')::int AS installed, " +
      "(SELECT count(*) FROM pg_available_extensions WHERE name = 'vector')::int AS available",
  )) as Array<{ installed: number; available: number }>;
  const { installed, available } = rows[0]!;
  if (installed > 0) {
    return { extension: "installed", recall: "fts", detail: "pgvector is installed; recall ranks by full-text search" };
  }
  if (available > 0) {
    return { extension: "available", recall: "fts", detail: "pgvector can be installed (CREATE EXTENSION vector); recall ranks by full-text search" };
  }
  return {
    extension: "absent",
    recall: "fts",
    detail: "pgvector is not available on this server; recall ranks by full-text search (tsvector + GIN)",
  };
}

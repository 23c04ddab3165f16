import type { SQL } from "bun";
import { vectorCatalog } from "../storage/postgres/migration-vector.ts";

/** What the PostgreSQL server offers for vector recall: pgvector installed in the database, available, or absent. */
export interface VectorSupport {
  extension: "installed" | "available" | "absent";
  /** What recall uses: "hybrid" (full-text and vector rankings fused) needs pgvector, the embeddings table and embeddings. */
  recall: "fts" | "hybrid";
  detail: string;
}

/**
 * Detect pgvector (`CREATE EXTENSION vector`) on the server and say what recall ranks by: hybrid when the extension
 * and the embeddings table (storage migration 3) are there and `embeds` (the default provider has
 * `embedding_model`), full-text search otherwise. `prx storage status` prints it.
 */
export async function detectVectorSupport(sql: SQL, embeds = false): Promise<VectorSupport> {
  const { installed, available, tabled } = await vectorCatalog(sql);
  if (installed && tabled && embeds) {
    return {
      extension: "installed",
      recall: "hybrid",
      detail: "pgvector is installed; recall fuses full-text search and vector similarity (reciprocal rank fusion)",
    };
  }
  if (installed && tabled) {
    return {
      extension: "installed",
      recall: "fts",
      detail: "pgvector is installed; recall ranks by full-text search (set embedding_model on the default provider for hybrid recall)",
    };
  }
  if (installed || available) {
    return {
      extension: installed ? "installed" : "available",
      recall: "fts",
      detail: "pgvector is offered but the memory embeddings table is missing; recall ranks by full-text search (`prx storage migrate` adds it; installing pgvector needs a role allowed to CREATE EXTENSION)",
    };
  }
  return {
    extension: "absent",
    recall: "fts",
    detail: "pgvector is not available on this server; recall ranks by full-text search (tsvector + GIN)",
  };
}

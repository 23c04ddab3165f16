import type { Config } from "../config/schema.ts";
import { openPgMemory, type PgMemoryPool } from "../memory/create.ts";
import type { MemoryBackend } from "../memory/types.ts";
import type { EmbedTexts } from "../memory/embeddings.ts";
import type { SqliteHybrid } from "../memory/sqlite.ts";
import type { FileStores } from "../storage/types.ts";
import { isExternalProviderName } from "../providers/resolver.ts";
import type { ProviderResolver } from "../providers/types.ts";

/**
 * The default provider's embeddings for memory's hybrid recall (SQLite and PostgreSQL), or undefined when it has none: whether
 * it embeds is what the resolver built says (`embedding_model` on an OpenAI-compatible provider; a reliability chain
 * embeds with its primary only). A plugin's provider is not used for memory's vectors. Resolving builds no HTTP
 * client: that loads with the first call.
 */
export function memoryEmbedder(config: Config, providers: ProviderResolver): EmbedTexts | undefined {
  if (isExternalProviderName(config.default_provider)) return undefined;
  const provider = providers.resolve(config.default_provider);
  const embed = provider.embed;
  if (!embed) return undefined;
  return async (input) => {
    const answer = await embed({ input });
    return { embeddings: answer.embeddings, model: answer.model };
  };
}

/** `[memory] backend = "postgres"` on the storage's pool, hybrid when the default provider embeds. */
export function openPgMemoryFor(
  storage: PgMemoryPool,
  config: Config,
  providers: ProviderResolver,
): Promise<MemoryBackend> {
  return openPgMemory(storage, memoryEmbedder(config, providers), config.memory.vector_min_similarity);
}

/** What memory recall on SQLite ranks by, and why (`prx storage status`, `prx doctor`). */
export interface SqliteRecallMode {
  recall: "fts" | "hybrid";
  detail: string;
  hybrid: SqliteHybrid | null;
}

/**
 * `[memory] backend = "sqlite"`, hybrid when the default provider embeds and sqlite-vec loads on the workspace file's
 * connection (loaded only then: a start without embedding_model never touches it); full-text search otherwise, with
 * the reason.
 */
export async function sqliteRecallMode(
  files: Pick<FileStores, "memoryVectors">,
  cacheDir: string,
  config: Config,
  providers: ProviderResolver,
): Promise<SqliteRecallMode> {
  // without embedding_model nothing is resolved or loaded: a start stays as it was
  const embed = config.providers[config.default_provider]?.embedding_model === undefined ? undefined : memoryEmbedder(config, providers);
  if (!embed) {
    return { recall: "fts", detail: "recall ranks by full-text search (set embedding_model on the default provider for hybrid recall)", hybrid: null };
  }
  const vectors = await files.memoryVectors(cacheDir);
  if ("unavailable" in vectors) return { recall: "fts", detail: vectors.unavailable, hybrid: null };
  const { SqliteEmbeddings } = await import("../memory/sqlite-embeddings.ts");
  return {
    recall: "hybrid",
    detail: "recall fuses full-text search and vector similarity (sqlite-vec, reciprocal rank fusion)",
    hybrid: { vectors, embeddings: new SqliteEmbeddings(vectors, embed), minSimilarity: config.memory.vector_min_similarity },
  };
}

/**
 * What `prx storage status` and `prx doctor` say of recall on SQLite: hybrid or full-text and why, and with hybrid
 * how many entries have a current vector and how many wait for one.
 */
export async function describeSqliteRecall(
  files: Pick<FileStores, "memoryVectors">,
  cacheDir: string,
  config: Config,
  providers: ProviderResolver,
): Promise<{ recall: "fts" | "hybrid"; detail: string; vectors?: number; pending?: number }> {
  const mode = await sqliteRecallMode(files, cacheDir, config, providers);
  if (!mode.hybrid) return { recall: mode.recall, detail: mode.detail };
  const counts = mode.hybrid.vectors.counts();
  return { recall: "hybrid", detail: `${mode.detail}; ${counts.vectors} with a vector, ${counts.pending} waiting (prx memory reindex)`, ...counts };
}

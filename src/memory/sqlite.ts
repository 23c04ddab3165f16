import { PrxError } from "../core/errors.ts";
import type { MemoryStore, MemoryVectorStore } from "../storage/types.ts";
import { queryTerms } from "./fts-query.ts";
import { contentTerms } from "./relevance.ts";
import { toEntry } from "./rows.ts";
import { SqliteMemoryCatalog } from "./sqlite-catalog.ts";
import { fuseRrf, keepNear } from "./fusion.ts";
import { MEMORY_VECTOR_CANDIDATES, MEMORY_VECTOR_MIN_SIMILARITY, MEMORY_VECTOR_RELATIVE_CUTOFF } from "./limits.ts";
import type { SqliteEmbeddings } from "./sqlite-embeddings.ts";
import { planFor, rankedRecall } from "./sqlite-recall.ts";
import { PRIVATE_CATEGORY, type MemoryBackend, type MemoryEntry, type RecallOptions, type StoreOptions } from "./types.ts";
import { validateKey, validateLimit, validateStore } from "./validate.ts";

/** Hybrid recall on SQLite: the vectors (sqlite-vec loaded) and the default provider's embeddings. */
export interface SqliteHybrid {
  vectors: MemoryVectorStore;
  embeddings: SqliteEmbeddings;
  /** `[memory] vector_min_similarity`. */
  minSimilarity?: number;
}

/**
 * The built-in backend: the SQLite memory store's FTS5 index (src/storage), ranked and cut by relevance.ts. With
 * `hybrid`, entries also get vectors on store and recall fuses the full-text and vector rankings (the PostgreSQL
 * path's rules: reciprocal rank fusion, vector hits at least `vector_min_similarity` similar).
 */
export class SqliteMemory implements MemoryBackend {
  readonly name = "sqlite";
  readonly scopedRecall = true;
  readonly catalog: SqliteMemoryCatalog;
  private made: MemoryStore | undefined;
  /** `storeOf` makes the memory store, on the first use of this memory (a host opens without loading it). */
  constructor(
    private readonly storeOf: () => MemoryStore,
    readonly hybrid: SqliteHybrid | null = null,
  ) {
    this.catalog = new SqliteMemoryCatalog(() => this.tables);
  }

  private get tables(): MemoryStore {
    return (this.made ??= this.storeOf());
  }

  get embeddings(): SqliteEmbeddings | null {
    return this.hybrid?.embeddings ?? null;
  }

  async store(
    key: string,
    content: string,
    category: string,
    sessionId?: string | null,
    options?: StoreOptions,
  ): Promise<void> {
    validateStore(key, content, category, sessionId);
    const isPrivate = options?.private === true || category === PRIVATE_CATEGORY;
    this.run("store", () =>
      this.tables.upsert({ key, content, category, sessionId: sessionId ?? null, private: isPrivate, at: new Date().toISOString() }),
    );
    // after the entry is committed (and queued for a vector by a trigger): a failure here is logged, never loses it
    await this.hybrid?.embeddings.afterStore(key);
  }

  async recall(
    query: string,
    limit: number,
    sessionId?: string | null,
    options: RecallOptions = {},
  ): Promise<MemoryEntry[]> {
    validateLimit(limit);
    const scope = { limit, sessionId, includePrivate: options.includePrivate === true, keys: options.keys };
    // one snapshot for the count, the terms' counts and the rows: one read transaction, not one per statement
    const { fullText, vector } = this.run("recall", () =>
      this.tables.snapshot(() => {
        const entries = this.tables.count();
        if (entries === 0) return { fullText: [] };
        // No word at all (empty, punctuation): the most recent entries, as a listing. Only stop words: nothing.
        if (!options.relevantOnly && queryTerms(query).length === 0) return { fullText: this.tables.recent(limit, scope) };
        const terms = contentTerms(query);
        if (terms.length === 0) return { fullText: [] };
        // the query's vector is asked for first, so the embedding call runs while the full-text search does
        const vector = this.hybrid?.embeddings.queryVector(query);
        return { fullText: rankedRecall(this.tables, planFor(this.tables, terms, entries), scope), vector };
      }),
    );
    const queried = vector ? await vector : null;
    if (!queried || !this.hybrid) return fullText.map(toEntry);
    const minSimilarity = this.hybrid.minSimilarity ?? MEMORY_VECTOR_MIN_SIMILARITY;
    const near = this.run("recall", () =>
      this.hybrid!.vectors.nearest(queried.vector, queried.model, {
        ...scope,
        candidates: Math.max(MEMORY_VECTOR_CANDIDATES, limit),
        maxDistance: 1 - minSimilarity,
      }),
    ).map(({ distance, ...row }) => ({ ...row, score: 1 - distance }));
    const rows = fuseRrf(fullText, keepNear(near, MEMORY_VECTOR_RELATIVE_CUTOFF), limit);
    return rows.map(toEntry);
  }

  async get(key: string): Promise<MemoryEntry | null> {
    validateKey(key);
    const row = this.run("get", () => this.tables.byKey(key));
    return row ? toEntry(row) : null;
  }

  async forget(key: string): Promise<boolean> {
    validateKey(key);
    return this.run("forget", () => this.tables.deleteKey(key));
  }

  async count(): Promise<number> {
    return this.run("count", () => this.tables.count());
  }

  async health(): Promise<boolean> {
    try {
      this.tables.ping();
      return true;
    } catch {
      // health is a probe: a broken database is the answer "false", not an exception
      return false;
    }
  }

  private run<T>(operation: string, body: () => T): T {
    try {
      return body();
    } catch (cause) {
      throw new PrxError("MEMORY", `sqlite memory ${operation} failed: ${(cause as Error).message}`, {
        cause,
        hint: "check that the workspace database (data/prx.db) is writable and not locked by a stuck process",
      });
    }
  }
}

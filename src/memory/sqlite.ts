import { PrxError } from "../core/errors.ts";
import type { MemoryStore } from "../storage/types.ts";
import { queryTerms } from "./fts-query.ts";
import { contentTerms } from "./relevance.ts";
import { toEntry } from "./rows.ts";
import { SqliteMemoryCatalog } from "./sqlite-catalog.ts";
import { planFor, rankedRecall } from "./sqlite-recall.ts";
import { PRIVATE_CATEGORY, type MemoryBackend, type MemoryEntry, type RecallOptions, type StoreOptions } from "./types.ts";
import { validateKey, validateLimit, validateStore } from "./validate.ts";

/** The built-in backend: the SQLite memory store's FTS5 index (src/storage), ranked and cut by relevance.ts. */
export class SqliteMemory implements MemoryBackend {
  readonly name = "sqlite";
  readonly scopedRecall = true;
  readonly catalog: SqliteMemoryCatalog;
  constructor(private readonly tables: MemoryStore) {
    this.catalog = new SqliteMemoryCatalog(tables);
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
  }

  async recall(
    query: string,
    limit: number,
    sessionId?: string | null,
    options: RecallOptions = {},
  ): Promise<MemoryEntry[]> {
    validateLimit(limit);
    const includePrivate = options.includePrivate === true;
    const rows = this.run("recall", () => {
      const entries = this.tables.count();
      if (entries === 0) return [];
      // No word at all (empty, punctuation): the most recent entries, as a listing. Only stop words: nothing.
      const keys = options.keys;
      if (!options.relevantOnly && queryTerms(query).length === 0) return this.tables.recent(limit, { sessionId, includePrivate, keys });
      const terms = contentTerms(query);
      if (terms.length === 0) return [];
      return rankedRecall(this.tables, planFor(this.tables, terms, entries), { limit, sessionId, includePrivate, keys });
    });
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

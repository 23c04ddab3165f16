import type { SQL } from "bun";
import { PrxError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { pgFailure } from "../storage/postgres/connect.ts";
import type { MemoryPresence } from "../storage/types.ts";
import { queryTerms } from "./fts-query.ts";
import { PgMemoryCatalog } from "./postgres-catalog.ts";
import { PgEmbeddings, type EmbedTexts } from "./postgres-embeddings.ts";
import { MEMORY_VECTOR_MIN_SIMILARITY, MEMORY_VECTOR_RELATIVE_CUTOFF } from "./limits.ts";
import { keepNear } from "./fusion.ts";
import { fuseRrf, nearestPg } from "./postgres-hybrid.ts";
import { PG_MEMORY_COLUMNS, planForPg, rankedRecallPg, visibleTo } from "./postgres-recall.ts";
import { contentTerms } from "./relevance.ts";
import type { MemoryRow } from "../storage/types.ts";
import { toEntry } from "./rows.ts";
import { PRIVATE_CATEGORY, type MemoryBackend, type MemoryEntry, type RecallOptions, type StoreOptions } from "./types.ts";
import { validateKey, validateLimit, validateStore } from "./validate.ts";

/**
 * memory.backend = "postgres": the memories of every replica in one table with a generated tsvector and a GIN index,
 * ranked by the same rules as the SQLite path (relevance.ts: rarity-weighted share of the query, the same cut-offs).
 * The tables come from the storage migrations ([storage] backend = "postgres"). With pgvector on the server and a
 * provider that embeds (`embed`), entries also get vectors and recall fuses both rankings (postgres-hybrid.ts).
 */
export class PgMemory implements MemoryBackend {
  readonly name = "postgres";
  readonly scopedRecall = true;
  readonly catalog: PgMemoryCatalog;
  /** Present when the default provider embeds; idle on servers without the embeddings table. */
  readonly embeddings: PgEmbeddings | null;

  constructor(
    private readonly sql: SQL,
    embed?: EmbedTexts,
    /** `[memory] vector_min_similarity`. */
    private readonly minSimilarity = MEMORY_VECTOR_MIN_SIMILARITY,
    /** Whether memory held entries at a session lease's start, as the storage on this pool read it (memory-presence.ts). */
    private readonly presence: MemoryPresence | null = null,
  ) {
    this.presence?.watch();
    this.catalog = new PgMemoryCatalog(sql, this.presence);
    this.embeddings = embed ? new PgEmbeddings(sql, embed) : null;
  }

  async store(key: string, content: string, category: string, sessionId?: string | null, options?: StoreOptions): Promise<void> {
    validateStore(key, content, category, sessionId);
    const isPrivate = options?.private === true || category === PRIVATE_CATEGORY;
    const now = new Date().toISOString();
    // told even of a failure: one after the commit (a connection lost while answering) leaves the entry there
    await this.run("store", () =>
      this.sql.unsafe(
        `INSERT INTO memories (id, key, content, category, session_id, created_at, updated_at, private)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
         ON CONFLICT (key) DO UPDATE SET content = excluded.content, category = excluded.category,
           session_id = excluded.session_id, updated_at = excluded.updated_at, private = excluded.private`,
        [newId("mem"), key, content, category, sessionId ?? null, now, isPrivate],
      ),
    ).finally(() => this.presence?.written());
    // after the entry is written: a failure here is logged and leaves the entry to full-text recall
    await this.embeddings?.afterStore(key);
  }

  async recall(query: string, limit: number, sessionId?: string | null, options: RecallOptions = {}): Promise<MemoryEntry[]> {
    validateLimit(limit);
    const includePrivate = options.includePrivate === true;
    const rows = await this.run("recall", async (): Promise<MemoryRow[]> => {
      // No word at all (empty, punctuation): the most recent entries, as a listing. Only stop words: nothing.
      const keys = options.keys;
      // auto-recall at a turn's start on a store its session's lease start found empty: nothing, without a query
      if (options.relevantOnly && sessionId && this.presence?.takeEmpty(sessionId)) return [];
      if (!options.relevantOnly && queryTerms(query).length === 0) return this.recent(limit, { sessionId, includePrivate, keys });
      const terms = contentTerms(query);
      if (terms.length === 0) return [];
      const ranked = { limit, sessionId, includePrivate, keys };
      const { entries, plan } = await planForPg(this.sql, terms);
      // an empty store costs no query, and no embedding call either
      if (entries === 0) return [];
      const [fullText, vector] = await Promise.all([rankedRecallPg(this.sql, plan, ranked), this.embeddings?.queryVector(query)]);
      if (!vector) return fullText;
      return fuseRrf(fullText, keepNear(await nearestPg(this.sql, vector, ranked, this.minSimilarity), MEMORY_VECTOR_RELATIVE_CUTOFF), limit);
    });
    return rows.map(toEntry);
  }

  private async recent(limit: number, scope: Parameters<typeof visibleTo>[0]): Promise<MemoryRow[]> {
    const args: unknown[] = [limit];
    const where = visibleTo(scope, (value) => (args.push(value), `$${args.length}`));
    const filter = where.length ? `WHERE ${where.join(" AND ")}` : "";
    return (await this.sql.unsafe(
      `SELECT ${PG_MEMORY_COLUMNS} FROM memories m ${filter} ORDER BY m.updated_at DESC, m.seq DESC LIMIT $1`,
      args,
    )) as MemoryRow[];
  }

  async get(key: string): Promise<MemoryEntry | null> {
    validateKey(key);
    const rows = (await this.run("get", () =>
      this.sql.unsafe(`SELECT ${PG_MEMORY_COLUMNS} FROM memories m WHERE m.key = $1`, [key]),
    )) as MemoryRow[];
    return rows[0] ? toEntry(rows[0]) : null;
  }

  async forget(key: string): Promise<boolean> {
    validateKey(key);
    return (await this.run("forget", () => this.sql.unsafe("DELETE FROM memories WHERE key = $1", [key]))).count > 0;
  }

  async count(): Promise<number> {
    return (await this.run("count", () => this.sql.unsafe("SELECT count(*)::int AS n FROM memories")))[0].n;
  }

  async health(): Promise<boolean> {
    try {
      await this.sql.unsafe("SELECT 1 FROM memories LIMIT 0");
      return true;
    } catch {
      // health is a probe: an unreachable database is the answer "false", not an exception
      return false;
    }
  }

  private async run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (cause) {
      if (cause instanceof PrxError) throw cause;
      const failure = pgFailure(`memory ${operation}`, cause);
      throw new PrxError("MEMORY", failure.message, { cause, hint: failure.hint });
    }
  }
}

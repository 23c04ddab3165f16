import type { SQL } from "bun";
import { errorMessage, PrxError } from "../core/errors.ts";
import type { MemoryReindex, ReindexProgress } from "./types.ts";
import { createLogger } from "../core/logger.ts";
import { embedChecked, embeddingText, queryText, type Embedded, type EmbedTexts } from "./embeddings.ts";
import { MEMORY_EMBED_BACKFILL_MAX, MEMORY_VECTOR_INDEX_MAX_DIMENSIONS } from "./limits.ts";

export { embeddingText, type EmbedTexts };

const log = createLogger("memory.embeddings");

export interface QueryVector {
  model: string;
  dims: number;
  /** pgvector's text form, "[0.1,0.2,...]". */
  literal: string;
}

/** The partial HNSW index for one dimension, or null past pgvector's HNSW limit (then an exact scan serves it). */
export function hnswIndexSql(dims: number): string | null {
  if (!Number.isInteger(dims) || dims < 1 || dims > MEMORY_VECTOR_INDEX_MAX_DIMENSIONS) return null;
  return (
    `CREATE INDEX IF NOT EXISTS memory_embeddings_hnsw_${dims} ON memory_embeddings ` +
    `USING hnsw ((embedding::vector(${dims})) vector_cosine_ops) WHERE dims = ${dims}`
  );
}

const literal = (vector: number[]) => `[${vector.join(",")}]`;

interface Pending {
  id: string;
  key: string;
  content: string;
  updated_at: string;
}

/**
 * Embeddings of memories in `memory_embeddings` (storage migration 3, present only where pgvector is). Writing is
 * best effort: a provider failure is logged and the entry keeps full-text recall; entries waiting for a current vector
 * (`memory_embedding_pending`: never embedded, changed since, or embedded by another model) are embedded
 * MEMORY_EMBED_BACKFILL_MAX at a time along with the next entry stored.
 */
export class PgEmbeddings implements MemoryReindex {
  private table: Promise<boolean> | null = null;
  private readonly indexed = new Set<number>();
  /** The model of the last answer: vectors of another model are stale. */
  private model: string | null = null;

  constructor(
    private readonly sql: SQL,
    private readonly embed: EmbedTexts,
  ) {}

  /** True when the embeddings table exists (pgvector installed and migration 3 applied). */
  available(): Promise<boolean> {
    this.table ??= this.sql
      .unsafe("SELECT to_regclass('memory_embeddings') IS NOT NULL AS present")
      .then((rows) => rows[0].present === true)
      .catch((error: unknown) => {
        this.table = null;
        throw error;
      });
    return this.table;
  }

  /** Embed the entry just stored under `key` and up to MEMORY_EMBED_BACKFILL_MAX others waiting for a vector. */
  async afterStore(key: string): Promise<number> {
    try {
      if (!(await this.available())) return 0;
      const pending = (await this.sql.unsafe(
        `(SELECT m.id, m.key, m.content, m.updated_at FROM memories m WHERE m.key = $1)
         UNION ALL
         (SELECT m.id, m.key, m.content, m.updated_at FROM memory_embedding_pending p JOIN memories m ON m.id = p.memory_id
          WHERE m.key <> $1 ORDER BY p.queued LIMIT $2)`,
        [key, MEMORY_EMBED_BACKFILL_MAX],
      )) as Pending[];
      if (pending.length === 0) return 0;
      const answer = await this.call(pending.map((p) => embeddingText(p.key, p.content)));
      await this.write(pending, answer);
      return pending.length;
    } catch (error) {
      // the entry is stored; without a vector it is recalled by full-text search until a later store embeds it
      log.warn("memory not embedded; it keeps full-text recall and is embedded with a later store", {
        key,
        error: errorMessage(error),
      });
      return 0;
    }
  }

  /** See MemoryReindex: the queue's head, `batch` at a time, until it is empty. */
  async reindex(options: { all?: boolean; batch?: number; progress?: ReindexProgress } = {}): Promise<number> {
    if (!(await this.available())) {
      throw new PrxError("MEMORY", "the server has no memory embeddings table: recall is full-text search", {
        hint: "install pgvector as a role allowed to (CREATE EXTENSION vector), then `prx storage migrate`",
      });
    }
    const batch = options.batch ?? MEMORY_EMBED_BACKFILL_MAX;
    if (options.all) await this.sql.unsafe("INSERT INTO memory_embedding_pending (memory_id) SELECT id FROM memories ON CONFLICT DO NOTHING");
    const waiting = async () => (await this.sql.unsafe("SELECT count(*)::int AS n FROM memory_embedding_pending"))[0].n as number;
    let done = 0;
    if ((await waiting()) === 0) {
      // as on SQLite: one entry tells which model answers now, and a model other than the vectors' queues them all
      const first = (await this.sql.unsafe("SELECT m.id, m.key, m.content, m.updated_at FROM memories m ORDER BY m.seq LIMIT 1")) as Pending[];
      if (first.length === 0) return 0;
      await this.write(first, await this.call(first.map((p) => embeddingText(p.key, p.content))));
      done = 1;
    }
    const total = done + (await waiting());
    options.progress?.(done, total);
    for (;;) {
      const pending = (await this.sql.unsafe(
        `SELECT m.id, m.key, m.content, m.updated_at FROM memory_embedding_pending p JOIN memories m ON m.id = p.memory_id
         ORDER BY p.queued LIMIT $1`,
        [batch],
      )) as Pending[];
      if (pending.length === 0) return done;
      await this.write(pending, await this.call(pending.map((p) => embeddingText(p.key, p.content))));
      done += pending.length;
      options.progress?.(done, Math.max(total, done));
      if (pending.length < batch) return done;
    }
  }

  /** The query's vector, or null when there is no embeddings table or the provider fails (recall is then full-text). */
  async queryVector(query: string): Promise<QueryVector | null> {
    try {
      if (!(await this.available())) return null;
      const answer = await this.call([queryText(query)]);
      const vector = answer.embeddings[0]!;
      return { model: answer.model, dims: vector.length, literal: literal(vector) };
    } catch (error) {
      log.warn("query not embedded; recall ranks by full-text search alone", { error: errorMessage(error) });
      return null;
    }
  }

  private async call(input: string[]): Promise<Embedded> {
    const answer = await embedChecked(this.embed, input);
    if (answer.model !== this.model) {
      // once per process and model: the vectors another model made are stale, so their entries wait again
      await this.sql.unsafe(
        `INSERT INTO memory_embedding_pending (memory_id) SELECT memory_id FROM memory_embeddings WHERE model <> $1
         ON CONFLICT DO NOTHING`,
        [answer.model],
      );
      this.model = answer.model;
    }
    return answer;
  }

  private async write(pending: Pending[], answer: Embedded): Promise<void> {
    const params: unknown[] = [];
    const rows = pending.map((p, i) => {
      const vector = answer.embeddings[i]!;
      params.push(p.id, answer.model, vector.length, p.updated_at, literal(vector));
      const n = params.length;
      return `($${n - 4}, $${n - 3}, $${n - 2}::int, $${n - 1}, $${n}::vector)`;
    });
    // An entry changed since it was read keeps its place in the queue: only the text that was embedded leaves it.
    await this.sql.unsafe(
      `WITH v (memory_id, model, dims, revision, embedding) AS (VALUES ${rows.join(", ")}),
       written AS (
         INSERT INTO memory_embeddings (memory_id, model, dims, revision, embedding)
         SELECT v.* FROM v WHERE EXISTS (SELECT 1 FROM memories m WHERE m.id = v.memory_id)
         ON CONFLICT (memory_id) DO UPDATE SET model = excluded.model, dims = excluded.dims, revision = excluded.revision,
           embedding = excluded.embedding
         RETURNING memory_id)
       DELETE FROM memory_embedding_pending p USING v, memories m
       WHERE p.memory_id = v.memory_id AND m.id = v.memory_id AND m.updated_at = v.revision`,
      params,
    );
    for (const dims of new Set(answer.embeddings.map((v) => v.length))) await this.ensureIndex(dims);
  }

  /** One HNSW index per dimension, made the first time a vector of that dimension is stored (once across replicas). */
  private async ensureIndex(dims: number): Promise<void> {
    const ddl = hnswIndexSql(dims);
    if (ddl === null || this.indexed.has(dims)) return;
    await this.sql.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext('prx'), hashtext('memory_embeddings_index'))");
      await tx.unsafe(ddl);
    });
    this.indexed.add(dims);
  }
}

import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import type { MemoryVectorPending, MemoryVectorStore } from "../storage/types.ts";
import { embedChecked, embeddingText, queryText, type Embedded, type EmbedTexts } from "./embeddings.ts";
import { MEMORY_EMBED_BACKFILL_MAX } from "./limits.ts";
import type { MemoryReindex, ReindexProgress } from "./types.ts";

const log = createLogger("memory.embeddings");

export interface SqliteQueryVector {
  model: string;
  vector: Float32Array;
}


/**
 * Embeddings of memories in the workspace SQLite file (the vector tables of storage's memory-schema.ts). Writing is
 * best effort on store: a provider failure is logged and the entry keeps full-text recall; entries waiting for a
 * current vector (never embedded, changed since, or embedded by another model) are embedded
 * MEMORY_EMBED_BACKFILL_MAX at a time along with the next entry stored, or all at once by `prx memory reindex`.
 */
export class SqliteEmbeddings implements MemoryReindex {
  /** The model and dimension of the last answer: vectors of another are stale and wait again. */
  private current: string | null = null;

  constructor(
    private readonly vectors: MemoryVectorStore,
    private readonly embed: EmbedTexts,
  ) {}

  /** Embed the entry just stored under `key` and up to MEMORY_EMBED_BACKFILL_MAX others waiting for a vector. */
  async afterStore(key: string): Promise<number> {
    try {
      return await this.embedBatch(this.vectors.pending(key, MEMORY_EMBED_BACKFILL_MAX));
    } catch (error) {
      // the entry is stored and queued; without a vector it is recalled by full-text search until a later store embeds it
      log.warn("memory not embedded; it keeps full-text recall and is embedded with a later store", { key, error: errorMessage(error) });
      return 0;
    }
  }

  /** The query's vector, or null when the provider fails (recall is then full-text). */
  async queryVector(query: string): Promise<SqliteQueryVector | null> {
    try {
      const answer = await this.call([queryText(query)]);
      return { model: answer.model, vector: Float32Array.from(answer.embeddings[0]!) };
    } catch (error) {
      log.warn("query not embedded; recall ranks by full-text search alone", { error: errorMessage(error) });
      return null;
    }
  }

  /**
   * Embed every entry waiting for a vector, `batch` at a time (with `all`, every entry first queued again); returns
   * how many were embedded. A provider failure throws: what was written stays, the rest waits.
   */
  async reindex(options: { all?: boolean; batch?: number; progress?: ReindexProgress } = {}): Promise<number> {
    const batch = options.batch ?? MEMORY_EMBED_BACKFILL_MAX;
    if (options.all) this.vectors.requeueAll();
    let done = 0;
    if (this.vectors.counts().pending === 0) {
      // nothing waits for this process's idea of the model: one entry tells which model answers now, and a model
      // other than the vectors' queues every entry again
      const first = this.vectors.first();
      if (first === null) return 0;
      done = await this.embedBatch([first]);
    }
    const total = done + this.vectors.counts().pending;
    options.progress?.(done, total);
    for (;;) {
      const pending = this.vectors.pending(null, batch);
      if (pending.length === 0) return done;
      await this.embedBatch(pending);
      done += pending.length;
      options.progress?.(done, Math.max(total, done));
      // a batch that left the queue as it was (every entry changed meanwhile) would loop: stop, they wait for the next run
      if (pending.length < batch) return done;
    }
  }

  private async embedBatch(pending: MemoryVectorPending[]): Promise<number> {
    if (pending.length === 0) return 0;
    const answer = await this.call(pending.map((p) => embeddingText(p.key, p.content)));
    this.vectors.write(
      answer.model,
      pending.map((p, i) => ({ seq: p.seq, revision: p.updated_at, vector: Float32Array.from(answer.embeddings[i]!) })),
    );
    return pending.length;
  }

  private async call(input: string[]): Promise<Embedded> {
    const answer = await embedChecked(this.embed, input);
    const dims = answer.embeddings[0]?.length ?? 0;
    const current = `${answer.model}\0${dims}`;
    if (dims > 0 && current !== this.current) {
      // once per process, model and dimension: vectors of another model or length are stale, their entries wait again
      this.vectors.requeueOthers(answer.model, dims);
      this.current = current;
    }
    return answer;
  }
}

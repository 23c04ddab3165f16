import type { MemoryEntry } from "./entry-schema.ts";
import type { MemoryKeyScope } from "../storage/types.ts";

export type { MemoryEntry, MemoryKeyScope };

/** Category that marks an entry private on every backend (the only way on `wasm:` backends, whose WIT has no flag). */
export const PRIVATE_CATEGORY = "private";

export interface StoreOptions {
  /** Keep the entry out of auto-recall and plugin recalls (see PRIVATE_CATEGORY). */
  private?: boolean;
}

export interface RecallOptions {
  /**
   * Return private entries too. Only explicit searches by the user or the model (memory_recall, `prx memory
   * search`, the memory API) set it; auto-recall and plugins never do.
   */
  includePrivate?: boolean;
  /**
   * Only entries the query's words match: a query with nothing to match (stop words, punctuation, emoji) returns
   * nothing instead of the most recent entries. Auto-recall sets it.
   */
  relevantOnly?: boolean;
  /**
   * Only entries whose keys this scope allows (an agent's own memory). Backends with `scopedRecall` apply it before
   * the answer is cut to `limit`; others ignore it (the caller filters what they return).
   */
  keys?: MemoryKeyScope;
}

/** An entry as `prx memory export` writes it and `import` reads it (see transfer.ts). */
export interface MemoryRecord {
  key: string;
  content: string;
  category: string;
  private: boolean;
  session_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface MemoryPage {
  entries: MemoryEntry[];
  /** Entries matching the filter, over all pages. */
  total: number;
}

export interface ImportOutcome {
  created: number;
  replaced: number;
}

/** Listing, export and import: what backends that can enumerate their entries offer (sqlite, none). */
export interface MemoryCatalog {
  /** Newest first. */
  list(options: { limit: number; offset: number; category?: string }): MemoryPage | Promise<MemoryPage>;
  /** Every entry, oldest first, read page by page (iterate with `for await`). */
  records(): Iterable<MemoryRecord> | AsyncIterable<MemoryRecord>;
  /** All or nothing: one transaction. An existing key is replaced. */
  importRecords(records: MemoryRecord[]): ImportOutcome | Promise<ImportOutcome>;
  /** Delete the entries stored with scope "session" in this session; returns how many. */
  forgetSession(sessionId: string): number | Promise<number>;
}

/** Progress of a reindex: entries embedded so far, of `total` waiting when it started. */
export type ReindexProgress = (done: number, total: number) => void;

/** The vectors of a backend with hybrid recall on (`prx memory reindex`). */
export interface MemoryReindex {
  /**
   * Embed every entry waiting for a vector of its current text (with `all`, every entry first queued again),
   * `batch` per provider call; returns how many were embedded. A provider failure throws: what was written stays.
   */
  reindex(options?: { all?: boolean; batch?: number; progress?: ReindexProgress }): Promise<number>;
}

export interface MemoryBackend {
  /** "sqlite", "postgres", "none", "wasm:<name>". */
  readonly name: string;
  /** Insert or replace the entry with this key. */
  store(key: string, content: string, category: string, sessionId?: string | null, options?: StoreOptions): Promise<void>;
  /**
   * Relevant entries, best first; a session id restricts to that session plus global entries. Private entries are
   * left out unless `options.includePrivate`.
   */
  recall(query: string, limit: number, sessionId?: string | null, options?: RecallOptions): Promise<MemoryEntry[]>;
  get(key: string): Promise<MemoryEntry | null>;
  forget(key: string): Promise<boolean>;
  count(): Promise<number>;
  health(): Promise<boolean>;
  /** Present when the backend can enumerate its entries (the storage WIT cannot). */
  readonly catalog?: MemoryCatalog;
  /** True when recall applies RecallOptions.keys itself (sqlite, postgres). */
  readonly scopedRecall?: boolean;
  /** Present (not null) when recall is hybrid: the default provider embeds and the store keeps vectors. */
  readonly embeddings?: MemoryReindex | null;
}

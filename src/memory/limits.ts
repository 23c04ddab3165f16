/** Bounds of the memory subsystem; every backend and the memory_* tools enforce the same ones. */
export const MEMORY_MAX_KEY_BYTES = 256;
export const MEMORY_MAX_CONTENT_BYTES = 64 * 1024;
export const MEMORY_MAX_CATEGORY_BYTES = 64;
export const MEMORY_MAX_SESSION_ID_BYTES = 256;
export const MEMORY_MAX_RECALL_LIMIT = 100;
/** Query terms beyond this are ignored, so one huge query cannot turn into an expensive OR of thousands of terms. */
export const MEMORY_MAX_QUERY_TERMS = 32;
/** Category used when a caller gives none. */
export const MEMORY_DEFAULT_CATEGORY = "core";
/**
 * Query terms found in more entries than this are too common to rank by (BM25 gives them almost no weight, yet
 * scoring every entry that holds them dominates recall time). They are dropped while a rarer term remains;
 * when every term is that common, recall returns the most recent entries that match.
 */
export const MEMORY_RANK_TERM_MAX_DOCS = 2000;

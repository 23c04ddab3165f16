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
 * scoring every entry that holds them dominates recall time): they never match on their own.
 */
export const MEMORY_RANK_TERM_MAX_DOCS = 2000;
/**
 * From this many entries on, a term found in more than MEMORY_COMMON_TERM_SHARE of them is too common to match on
 * its own (in a small store every word is in a large share of the entries, so the rule waits for enough of them).
 */
export const MEMORY_COMMON_TERM_MIN_ENTRIES = 50;
export const MEMORY_COMMON_TERM_SHARE = 0.2;
/**
 * A recalled entry must match at least this share of the query's weight (its content terms, each weighted by how
 * rare it is; a term no entry holds weighs like the rarest one). Below it an entry shares a word with the query but
 * is not about it.
 */
export const MEMORY_RECALL_MIN_SCORE = 0.5;
/** Entries scoring below this fraction of the best entry's score are dropped: they are weak next to it. */
export const MEMORY_RECALL_RELATIVE_CUTOFF = 0.7;
/** Scores within this of a cut-off count as at the cut-off (the weights are floating-point sums). */
export const MEMORY_SCORE_EPSILON = 1e-9;
/** Most entries one page of a memory listing returns (`prx memory list`, GET /api/memory); larger asks are clamped. */
export const MEMORY_LIST_MAX = 500;
/**
 * Hybrid recall (memory.backend = "postgres" with pgvector and a provider with `embedding_model`): entries that
 * lack a current embedding are embedded this many at a time, in the same provider call as the entry being stored.
 */
export const MEMORY_EMBED_BACKFILL_MAX = 16;
/** Characters of an entry ("key\ncontent") or a query sent to the embedding model; the rest is not embedded. */
export const MEMORY_EMBED_TEXT_MAX_CHARS = 8000;
/** pgvector's largest `vector`; a longer embedding is not stored (the entry keeps full-text recall). */
export const MEMORY_VECTOR_MAX_DIMENSIONS = 16_000;
/** pgvector's HNSW index takes vectors up to this long; longer ones are searched by an exact scan. */
export const MEMORY_VECTOR_INDEX_MAX_DIMENSIONS = 2000;
/**
 * A vector hit needs at least this cosine similarity to the query (1 - the `<=>` distance); below it an entry is
 * not about the question, so unrelated questions still recall nothing. The default of `[memory]
 * vector_min_similarity`: models differ in scale, so a deployment tunes it.
 */
export const MEMORY_VECTOR_MIN_SIMILARITY = 0.5;
/**
 * Hybrid recall on SQLite: the SimHash codes of every vector pick this many candidates (Hamming distance), which are
 * then compared by the cosine distance of their stored vectors. Up to this many vectors every one is compared; past it
 * an entry whose code is far but whose vector is near can be missed (the trade of scanning codes).
 */
export const MEMORY_VECTOR_CANDIDATES = 256;
/** Entries `prx memory reindex` embeds per provider call. */
export const MEMORY_REINDEX_BATCH = 64;
/** Vector hits under this fraction of the best hit's similarity are dropped before fusion (on every backend). */
export const MEMORY_VECTOR_RELATIVE_CUTOFF = 0.85;
/** Reciprocal rank fusion of the full-text and vector rankings: an entry scores the sum of 1 / (K + rank). */
export const MEMORY_RRF_K = 60;
/**
 * Up to this many entries the PostgreSQL store is counted exactly on recall (a scan of at most this many rows): below
 * it the count decides which terms are too common (MEMORY_COMMON_TERM_SHARE). Past it a term is common only past
 * MEMORY_RANK_TERM_MAX_DOCS, and the count only scales term weights, so the planner's estimate of the table serves.
 */
export const MEMORY_EXACT_COUNT_MAX = MEMORY_RANK_TERM_MAX_DOCS / MEMORY_COMMON_TERM_SHARE;
/**
 * PostgreSQL recall asks the GIN index for the entries holding one of the sets of query terms that reach
 * MEMORY_RECALL_MIN_SCORE (reaching-sets.ts); past this many sets (many terms of like weight) it asks for entries
 * holding any term, ranking more of them.
 */
export const MEMORY_PG_MAX_REACHING_SETS = 64;

/** Every bound of the storage layer, in one place. */

/** The session id's bounds live in core (config checks ids too). */
export { SESSION_ID_MAX_BYTES, SESSION_ID_PATTERN } from "../core/session-id.ts";
/** Characters of the first user message kept as a session's title. */
export const SESSION_TITLE_CHARS = 60;
/** Longest title a session can be given by a rename (characters). */
export const SESSION_TITLE_MAX_CHARS = 200;
/** Longest search text of a session search (characters). */
export const SESSION_SEARCH_MAX_CHARS = 200;
/**
 * SQLite: most sessions the trigram index may name for a search to be answered from it (read, then sorted by
 * recency). A text found in more is answered by reading sessions newest first until the limit is reached, which is
 * quick when that many match (at most a 1/this share of the sessions is read per result asked for).
 */
export const SESSION_SEARCH_INDEX_MAX_HITS = 2000;

/** How long a turn waits for another replica's turn on the same session before it fails (STORAGE_LEASE). */
export const SESSION_LEASE_WAIT_MS = 120_000;
/**
 * Most PostgreSQL connections of a process's lease pool (each running turn holds one; more turns wait for one).
 * The pool is `[storage] pool_max` large, at most this: a process opens at most 2 x pool_max connections.
 */
export const SESSION_LEASE_MAX_CONNECTIONS = 64;

/** Random bytes in a bearer token (256 bits). */
export const TOKEN_BYTES = 32;
/** `last_used_at` is written at most this often per token, so reads do not turn into writes. */
export const TOKEN_TOUCH_INTERVAL_MS = 60_000;
/** Longest token name accepted by `prx gateway token create --name`. */
export const TOKEN_NAME_MAX_CHARS = 64;
/** Longest bearer token accepted in an Authorization header (ours are ~47 chars). */
export const BEARER_MAX_CHARS = 512;
/** PostgreSQL: verified tokens remembered per process (by SHA-256). */
export const TOKEN_CACHE_MAX_ENTRIES = 1024;
/**
 * PostgreSQL: how long a verified token is trusted without asking the database again. A revocation through
 * another replica is honoured within this time (SQLite looks the token up at every request).
 */
export const TOKEN_CACHE_TTL_MS = 1000;

/** Longest accepted `X-Idempotency-Key`, in UTF-8 bytes. */
export const IDEMPOTENCY_KEY_MAX_BYTES = 256;
/** A pending idempotency record older than this is treated as abandoned (the process died mid-turn). */
export const IDEMPOTENCY_PENDING_TIMEOUT_MS = 15 * 60_000;
/** Expired idempotency rows removed per cleanup pass (keeps one request's cost bounded). */
export const IDEMPOTENCY_PURGE_BATCH = 500;

/** How long a stored Responses API answer is kept unless configured (OpenAI keeps them 30 days). */
export const DEFAULT_RESPONSES_TTL_MS = 30 * 86_400_000;
/** Expired stored responses removed per cleanup pass, and the least time between passes of one store. */
export const RESPONSES_PURGE_BATCH = 500;
export const RESPONSES_PURGE_INTERVAL_MS = 60_000;

/** Longest plugin KV key, in UTF-8 bytes. */
export const KV_KEY_MAX_BYTES = 1024;

/** Code length, lifetime and most pending requests per channel of channel pairing. */
export const CHANNEL_PAIRING_CODE_LENGTH = 6;
export const CHANNEL_PAIRING_TTL_MS = 60 * 60 * 1000;
export const CHANNEL_PAIRING_MAX_PENDING = 100;

/** Rows copied per statement by `prx storage copy`. */
export const STORAGE_COPY_BATCH = 500;

/**
 * PostgreSQL `memory_terms` counts the entries holding a word exactly up to this many; past it a word is only known to
 * be held by more, and its row is no longer written (a common word's row would otherwise be locked and rewritten by
 * every store). Recall needs exact counts up to its own cap of a term's entries (memory's MEMORY_RANK_TERM_MAX_DOCS,
 * 2000): this is one more. The migration's triggers carry the number, so a change needs a new migration.
 */
export const PG_MEMORY_TERM_DOCS_KEPT = 2001;

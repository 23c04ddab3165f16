/** Every bound the gateway enforces, in one place. Config-driven limits live in `[gateway]` of config.toml. */

/** Idempotency keys, tokens and session ids are bounded where they are stored (src/storage/limits.ts). */
export {
  IDEMPOTENCY_KEY_MAX_BYTES,
  IDEMPOTENCY_PENDING_TIMEOUT_MS,
  IDEMPOTENCY_PURGE_BATCH,
  TOKEN_BYTES,
  TOKEN_TOUCH_INTERVAL_MS,
  TOKEN_NAME_MAX_CHARS,
  BEARER_MAX_CHARS,
} from "../storage/limits.ts";

/** Wrong pairing codes from one client before it is locked out. */
export const PAIRING_MAX_FAILURES = 5;
/** How long a client stays locked out after too many wrong pairing codes. */
export const PAIRING_LOCKOUT_MS = 5 * 60_000;
/** Characters of the one-time pairing code, drawn from the 31 of UNAMBIGUOUS_ALPHABET (src/core/random-code.ts). */
export const PAIRING_CODE_LENGTH = 8;
/**
 * Wrong guesses a pairing code survives, from any address through any replica; the next wrong one burns it (the
 * operator prints a new one with `prx gateway pair-code`). A code thus takes at most 21 guesses: a chance of at most
 * 21 / 31^8 ≈ 2.5e-11 that one of them is right.
 */
export const PAIRING_CODE_MAX_WRONG = 20;
/** Clients whose failed pairing attempts are remembered; the oldest are forgotten first. */
export const PAIRING_MAX_TRACKED_CLIENTS = 10_000;

/** Rate-limit buckets kept in memory per limiter; idle full buckets are evicted first. */
export const RATE_LIMIT_MAX_KEYS = 10_000;

/** Session ids accepted in URLs and bodies; the longest session search text and title (stores enforce them). */
export { SESSION_ID_PATTERN, SESSION_SEARCH_MAX_CHARS, SESSION_TITLE_MAX_CHARS } from "../storage/limits.ts";
/** Most sessions returned by GET /api/sessions. */
export const SESSIONS_LIST_MAX = 500;
/** Most messages returned by GET /api/sessions/:id/messages. */
export const SESSION_MESSAGES_MAX = 1000;
/** Longest user message: the one limit of every entry point (agent/limits.ts). */
export { USER_MESSAGE_MAX_CHARS } from "../agent/limits.ts";
/** Most messages accepted in one OpenAI-compatible request. */
export const OPENAI_MAX_MESSAGES = 1000;
/** Most client tools in one OpenAI-compatible request (the OpenAI API's own limit). */
export const OPENAI_MAX_TOOLS = 128;

/** SSE comment sent this often while a turn is silent, so proxies keep the connection open. */
export const SSE_KEEPALIVE_MS = 15_000;
/** A streamed answer's headers wait this long for its first event, to leave in the same packet; then with a keep-alive comment. */
export const SSE_HEADERS_WAIT_MS = 1000;

/** Longest accepted `X-Request-Id` from a client (echoed back); longer ones are replaced. */
export const REQUEST_ID_MAX_CHARS = 128;
/**
 * Bun's timer on a connection (it is not reset by bytes moving): a kept-alive connection between requests, and a
 * request until the gateway gives it GATEWAY_REQUEST_TIMEOUT_S. Above BODY_DEADLINE_MS, so a slow body gets its 408.
 */
export const GATEWAY_IDLE_TIMEOUT_S = 20;
/** How long a request may run, from its arrival, before Bun closes its connection (a stream: until its end). */
export const GATEWAY_REQUEST_TIMEOUT_S = 255;
/** A request body not fully arrived this long after the request's headers is answered 408 and its connection closed. */
export const BODY_DEADLINE_MS = 10_000;
/** Requests in flight from one client address; one more is answered 503 at once and its connection closed. */
export const CONNECTIONS_PER_ADDRESS_MAX = 64;
/** Requests in flight from all clients; one more is answered 503 at once (GET and HEAD /health are spared). */
export const CONNECTIONS_MAX = 1024;
/**
 * Bun's own body cap. It answers a larger declared Content-Length with a bare 413 before our pipeline runs, so it
 * sits above the largest gateway.max_body_bytes the config allows (64 MiB): our JSON 413 naming the limit wins.
 */
export const BUN_MAX_REQUEST_BODY_BYTES = 128 * 1024 * 1024;
/**
 * Each check of GET /health (PostgreSQL, Redis, plugins, channels) that has not answered within this long is reported
 * failed; the checks run together, so /health answers within about this long whatever it checks.
 */
export const HEALTH_CHECK_TIMEOUT_MS = 1_000;

/** Most messages accepted in one Anthropic Messages request. */
export const ANTHROPIC_MAX_MESSAGES = 1000;
/** Most client tools in one Anthropic Messages request. */
export const ANTHROPIC_MAX_TOOLS = 128;
/** Most stop sequences in one Anthropic Messages request. */
export const ANTHROPIC_MAX_STOP_SEQUENCES = 16;
/** Longest stop sequence (characters). */
export const ANTHROPIC_STOP_SEQUENCE_MAX_CHARS = 256;
/** Longest `metadata.user_id` of an Anthropic Messages request (characters). */
export const ANTHROPIC_USER_ID_MAX_CHARS = 256;
/** Most texts in one POST /v1/embeddings request (the OpenAI API's own limit). */
export { EMBED_MAX_INPUTS as EMBEDDINGS_MAX_INPUTS } from "../providers/openai-constants.ts";
/** Longest text of one embeddings input (characters; OpenAI's models take at most 8192 tokens an input). */
export const EMBEDDINGS_INPUT_MAX_CHARS = 32 * 1024;
/** Largest `dimensions` a client may ask of an embedding model. */
export { EMBED_MAX_DIMENSIONS as EMBEDDINGS_MAX_DIMENSIONS } from "../providers/openai-constants.ts";

/** Bounds of every Redis connection of prx (`[bus] backend = "redis"`). Tested in test/storage/redis (the backoff on a clock the test moves). */

/** Opening a connection to Redis (at start and at each reconnection attempt) fails after this long. */
export const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** A command Redis has not answered within this long fails (BUS), so no request waits longer for Redis. */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;
/** The first wait before reconnecting to a Redis that went away; it doubles per failed attempt... */
export const REDIS_RECONNECT_BASE_MS = 100;
/** ...up to this, and stays there: prx reconnects forever, and is back within this long of Redis returning. */
export const REDIS_RECONNECT_MAX_MS = 2_000;

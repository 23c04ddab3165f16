/**
 * The host-call budget of one plugin: runtime.* calls of a remote plugin, and the host imports of a WASM guest that
 * cross to the host's main thread. Each plugin may change them in its plugin.toml `[resources]`.
 */

/** `max_host_calls_per_second`: the rate at which the budget refills. */
export const DEFAULT_MAX_HOST_CALLS_PER_SECOND = 1_000;
/** `host_call_burst`: calls a plugin may make at once after a quiet while (the bucket's size). */
export const DEFAULT_HOST_CALL_BURST = 1_000;
/** `max_host_calls_in_flight`: calls the host is serving for one plugin at once. */
export const DEFAULT_MAX_HOST_CALLS_IN_FLIGHT = 128;

/** The largest values a plugin.toml may set. */
export const MAX_HOST_CALLS_PER_SECOND_LIMIT = 100_000;
export const MAX_HOST_CALL_BURST_LIMIT = 100_000;
export const MAX_HOST_CALLS_IN_FLIGHT_LIMIT = 4_096;

/**
 * A refused call is answered this long after it was refused (at most; answers go out in batches), so a plugin
 * retrying in a loop is paced instead of spinning against the host.
 */
export const HOST_CALL_REFUSAL_DELAY_MS = 100;
/** Refusals held for their delay per plugin; past it a refusal is answered at once. */
export const HOST_CALL_MAX_HELD_REFUSALS = 1_024;
/** A plugin's refused calls are logged at most once per this interval: the first with its reason, then a count. */
export const HOST_CALL_REFUSAL_LOG_INTERVAL_MS = 1_000;

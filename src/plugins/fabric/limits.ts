/** Bounds of the replica fabric (Redis pub/sub between replicas). Each is tested at the edge in test/plugins/fabric. */

/** Publishes to Redis not yet acknowledged; past this, events are dropped (with a warning) instead of queued. */
export const FABRIC_MAX_IN_FLIGHT = 4096;
/** A publish (or registry command) Redis has not acknowledged within this long is dropped and counted. */
export const FABRIC_PUBLISH_TIMEOUT_MS = 1000;
/** How often a replica re-announces itself and its subscription patterns, and reads the others'. */
export const FABRIC_REFRESH_MS = 1000;
/** A replica not heard from for this long is gone: its patterns and its reload answer are no longer awaited. */
export const FABRIC_REPLICA_TTL_MS = 5000;
/** Longest a reload through one replica waits for the other replicas' answers. */
export const RELOAD_FANOUT_TIMEOUT_MS = 30_000;
/** Largest message accepted from the fabric (an event's payload is bounded by EVENT_MAX_PAYLOAD_BYTES before). */
export const FABRIC_MESSAGE_MAX_BYTES = 256 * 1024;

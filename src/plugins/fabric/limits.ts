/** Bounds of the replica fabric (Redis pub/sub between replicas). Each is tested at the edge in test/plugins/fabric. */

/** Publishes to Redis not yet acknowledged; past this, events are dropped (with a warning) instead of queued. */
export const FABRIC_MAX_IN_FLIGHT = 4096;
/** A publish (or registry command) Redis has not acknowledged within this long is dropped and counted. */
export const FABRIC_PUBLISH_TIMEOUT_MS = 1000;
/**
 * How often a replica re-writes its registry entry and reads the others'. Joining, leaving and a change of patterns
 * are told at once by a notice on the peers channel: this refresh only ages out replicas that ended without a word
 * (killed) and heals a notice missed while Redis was away, so an idle replica stays quiet; at 5 s a killed replica
 * is dropped within 20 s, so a reload does not wait on it for long.
 */
export const FABRIC_REFRESH_MS = 5_000;
/**
 * A replica whose registry entry is older than this is gone: its patterns and its reload answer are no longer
 * awaited. Three refreshes, so one late or failed refresh never drops a live replica.
 */
export const FABRIC_REPLICA_TTL_MS = 3 * FABRIC_REFRESH_MS;
/** Longest a reload through one replica waits for the other replicas' answers. */
export const RELOAD_FANOUT_TIMEOUT_MS = 30_000;
/** Largest message accepted from the fabric (an event's payload is bounded by EVENT_MAX_PAYLOAD_BYTES before). */
export const FABRIC_MESSAGE_MAX_BYTES = 256 * 1024;

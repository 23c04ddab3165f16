/** Bounds of the event bus. Each one is tested at the edge in test/plugins/events. */

/** Events waiting in one subscription's queue; a full queue drops new events for that subscriber. */
export const EVENT_QUEUE_CAPACITY = 1024;
/** Largest payload, measured as the UTF-8 bytes of its JSON serialization. */
export const EVENT_MAX_PAYLOAD_BYTES = 64 * 1024;
/** Topic length in UTF-8 bytes (also the longest subscription pattern). */
export const EVENT_TOPIC_MIN_BYTES = 1;
export const EVENT_TOPIC_MAX_BYTES = 256;
/** A publish made while handling an event is nested one level deeper; depth 0 is a top-level publish. */
export const EVENT_MAX_PUBLISH_DEPTH = 8;
/** Subscriptions plus synchronous listeners alive on one bus. */
export const EVENT_MAX_SUBSCRIPTIONS = 4096;
/** At most one warning per subscriber (or listener) and reason in this interval; the rest are counted. */
export const EVENT_WARN_INTERVAL_MS = 5000;
/** Topics whose matching subscriber list is cached; the cache is cleared when full or on (un)subscribe. */
export const EVENT_ROUTE_CACHE_SIZE = 1024;

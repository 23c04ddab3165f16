/** Every bound of the remote plugin family, shared by the host and the worker side. */

import { MAX_JSON_DEPTH } from "../../core/json/index.ts";
import type { RestartLimits } from "../../core/supervise/index.ts";

/** Largest protocol message (one NDJSON line or one postMessage string), in UTF-8 bytes, refused on both sides. */
export const REMOTE_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/**
 * Deepest nesting of a message from a plugin to the host: a payload within MAX_JSON_DEPTH (what the gateway accepts
 * from clients, e.g. a route body a plugin echoes) inside the protocol's envelope. A deeper line is refused as
 * malformed before it is parsed.
 */
export const REMOTE_MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 8;
/** Protocol version announced by the worker; the host refuses other versions. */
export const REMOTE_PROTOCOL_VERSION = 1;

export const REMOTE_DEFAULT_RPC_TIMEOUT_MS = 30_000;
export const REMOTE_MIN_RPC_TIMEOUT_MS = 10;
export const REMOTE_MAX_RPC_TIMEOUT_MS = 600_000;
export const REMOTE_DEFAULT_READY_TIMEOUT_MS = 10_000;
export const REMOTE_MIN_READY_TIMEOUT_MS = 50;
export const REMOTE_MAX_READY_TIMEOUT_MS = 120_000;

/** After a call times out and `cancel` is sent, the worker must acknowledge within this or it is treated as hung. */
export const REMOTE_CANCEL_GRACE_MS = 1_000;
/** Calls waiting for an answer from one plugin at once; more are refused (bounded queue). */
export const REMOTE_MAX_PENDING_CALLS = 4_096;
/** Restarts allowed in a sliding minute before the plugin is left in status "error". */
export const REMOTE_MAX_RESTARTS_PER_MINUTE = 5;
export const REMOTE_RESTART_BACKOFF_BASE_MS = 100;
export const REMOTE_RESTART_BACKOFF_MAX_MS = 5_000;
export const REMOTE_RESTART_WINDOW_MS = 60_000;
/** Each restart in the sliding minute doubles the wait; one more than the allowance leaves the plugin failed. */
export const REMOTE_RESTART_LIMITS: Readonly<RestartLimits> = {
  baseMs: REMOTE_RESTART_BACKOFF_BASE_MS,
  maxMs: REMOTE_RESTART_BACKOFF_MAX_MS,
  windowMs: REMOTE_RESTART_WINDOW_MS,
  maxExitsPerWindow: REMOTE_MAX_RESTARTS_PER_MINUTE,
  onCrashLoop: "give-up",
};
/** shutdown() waits this long for in-flight calls, then for the process/worker to exit, before killing it. */
export const REMOTE_SHUTDOWN_GRACE_MS = 5_000;

/** stderr lines of a subprocess kept for crash reports. */
export const REMOTE_STDERR_TAIL_LINES = 50;
/** Longest stderr line forwarded to the log (the rest is cut). */
export const REMOTE_STDERR_MAX_LINE_CHARS = 2_000;

/**
 * Plugin output (console lines of the plugin, runtime.logger lines the host logs) per plugin and per
 * REMOTE_LOG_SUMMARY_INTERVAL_MS: what is over is dropped and counted, never buffered.
 */
export const REMOTE_OUTPUT_MAX_LINES_PER_INTERVAL = 200;
export const REMOTE_OUTPUT_MAX_BYTES_PER_INTERVAL = 128 * 1024;
/** Refused input and dropped output are logged as one summary at most this often per plugin. */
export const REMOTE_LOG_SUMMARY_INTERVAL_MS = 1_000;
/** Longest the host spends on one plugin's piped input before it lets the event loop run (then reads on). */
export const REMOTE_READ_SLICE_MS = 4;

/**
 * After answering a call with no other call running, a plugin Worker watches for the host's next message this long
 * (microseconds) before its thread goes back to sleep (plugins/hop/linger.ts): a call that follows at once (a chain of
 * service calls, a turn's providers) then finds the plugin awake instead of paying the wake-up of an idle CPU
 * through the hypervisor. Only after a call, so an idle plugin spends nothing; a call with none after it costs the
 * plugin this much CPU more. The same window as a WASM sandbox Worker's (SANDBOX_LINGER_US).
 */
export const REMOTE_LINGER_US = 100;
/**
 * After sending a call, the host watches a Worker's answers for this long (microseconds, once per event-loop turn)
 * before its event loop goes back to sleep: an answer that comes within it is read without the wake-up. This bounds
 * how long a call can hold the host's event loop. A subprocess's counts live in a page both processes map
 * (hop/process-hop.ts). A WASM sandbox's main thread watches the same way (SANDBOX_ANSWER_WAIT_US).
 */
export const REMOTE_ANSWER_WAIT_US = 50;

/** `[resources] max_memory_mb` of a remote plugin that does not set it. */
export const REMOTE_DEFAULT_MAX_MEMORY_MB = 512;
/**
 * How often a remote plugin's memory is measured: one shared timer reads every subprocess's RSS and checks every
 * Worker's reports; a Worker serving a call reports its heap this often.
 */
export const REMOTE_MEMORY_CHECK_MS = 250;
/**
 * A Worker reads its heap's size, and the host a subprocess's RSS, after a call at most this often (calls finishing
 * closer together share a reading; a call that allocates past its cap runs far longer than this, so it is still read
 * right after it).
 */
export const REMOTE_MEMORY_AFTER_CALL_GAP_MS = 1;
/** A Worker with no call in flight reports its heap this often (its runtime's own timers are rare then). */
export const REMOTE_MEMORY_IDLE_REPORT_MS = 5_000;
/**
 * A Worker with no call in flight whose last memory report is older than this is busy in synchronous code (three
 * idle reports missed); then, as with REMOTE_MEMORY_STALE_MS, the process's RSS growth counts as the Worker's.
 */
export const REMOTE_MEMORY_IDLE_STALE_MS = 3 * REMOTE_MEMORY_IDLE_REPORT_MS;
/**
 * A Worker serving a call whose last memory report (or the call's start) is older than this is busy in synchronous
 * code; while it is, the process's RSS growth since that report counts as the Worker's.
 */
export const REMOTE_MEMORY_STALE_MS = 1_000;
/** Where no PR_SET_PDEATHSIG is available, a plugin subprocess checks this often that its parent is alive. */
export const REMOTE_PARENT_CHECK_MS = 500;

/**
 * `[remote] idle_stop_ms` of a plugin that does not set it: a plugin that may start on demand (PROTOCOL.md, "On
 * demand") is stopped after this long without a call, and started again by the next one.
 */
export const REMOTE_DEFAULT_IDLE_STOP_MS = 300_000;
/** Largest `[remote] idle_stop_ms`; 0 keeps the plugin running from load to shutdown. */
export const REMOTE_MAX_IDLE_STOP_MS = 86_400_000;
/**
 * Files of a plugin's directory (outside node_modules) hashed into its descriptor cache key, and their bytes; a
 * plugin with more is not cached (it starts at load to announce itself, as without a cache).
 */
export const REMOTE_CODE_HASH_MAX_FILES = 5_000;
export const REMOTE_CODE_HASH_MAX_BYTES = 64 * 1024 * 1024;

/** Per-plugin persisted settings (setSetting). */
export const REMOTE_SETTING_MAX_KEY_BYTES = 256;
export const REMOTE_SETTING_MAX_VALUE_BYTES = 64 * 1024;
export const REMOTE_SETTINGS_MAX_PER_PLUGIN = 1_000;
/**
 * Sum of key and value bytes of one plugin's persisted settings. The worker reads them all when it starts (so
 * runtime.getSetting can answer synchronously, as in elizaOS), and they must fit in one protocol message.
 */
export const REMOTE_SETTINGS_MAX_TOTAL_BYTES = 1024 * 1024;

/** Tool description built from description + similes + examples is cut to this. */
export const REMOTE_TOOL_DESCRIPTION_MAX_CHARS = 2_000;
/** composeState includes at most this many recent session messages. */
export const REMOTE_COMPOSE_STATE_MAX_MESSAGES = 20;
/** A runtime.logger line longer than this (message, or the JSON of its fields) is cut before it is sent. */
export const REMOTE_PLUGIN_LOG_MAX_CHARS = 8 * 1024;
/** Memories one runtime.getMemories / runtime.searchMemories call returns at most (its `count` is capped to it). */
export const REMOTE_MEMORIES_MAX_RESULTS = 200;
/**
 * runtime.searchMemories with an `embedding` compares it with at most this many of the plugin's memories of the table
 * (newest first); older ones are not searched.
 */
export const REMOTE_MEMORIES_VECTOR_SCAN_MAX = 10_000;
/** Texts one runtime.useModel(TEXT_EMBEDDING, { texts }) call may embed at once. */
export const REMOTE_EMBEDDING_MAX_TEXTS = 256;
/** Room ids one runtime.getRoomsByIds call may ask for. */
export const REMOTE_ROOMS_MAX_IDS = 256;
/** Relationships runtime.getRelationships returns for the agent (one per session, most recent first). */
export const REMOTE_RELATIONSHIPS_MAX = 100;
/** Surfaces per kind a plugin may announce (actions, providers, routes, ...). */
export const REMOTE_MAX_SURFACES_PER_KIND = 256;

/** True when `usedBytes` is over a cap of `capMb` MiB (a plugin may use exactly its cap). */
export function overCap(usedBytes: number, capMb: number): boolean {
  return usedBytes > capMb * 1024 * 1024;
}

/**
 * Bytes of one route answer a plugin may write (res.write/send/json/end); it travels base64-encoded inside one
 * protocol message, so it stays under three quarters of REMOTE_MAX_MESSAGE_BYTES. A file sent with res.sendFile is
 * read by the host from the plugin's folder and streamed, not bounded by this.
 */
export const REMOTE_ROUTE_MAX_RESPONSE_BYTES = 3 * 1024 * 1024 - 64 * 1024;

/** Turns in progress whose elizaOS run (RUN_STARTED .. RUN_ENDED) is tracked; one per session at a time. */
export const REMOTE_ELIZA_RUNS_MAX = 10_000;

/** Every bound the WASM engine enforces, in one place. Per-plugin limits come from the manifest's [resources]. */

/** Largest JSON-encoded result a plugin call may return (bytes). Bigger results fail the call (PLUGIN_OUTPUT). */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
/** Calls waiting on one capability instance; one more is rejected (LIMIT_EXCEEDED). */
export const MAX_QUEUED_CALLS_PER_INSTANCE = 1024;
/** Time a sandbox gets to start and instantiate every capability instance. */
export const SANDBOX_INIT_TIMEOUT_MS = 30_000;
/** Most sandbox Workers a process runs, however many cores it has (SANDBOX_WORKERS). */
export const MAX_SANDBOX_WORKERS = 4;
/**
 * Sandbox Workers per process, shared by every WASM plugin (sandbox/pool.ts): the bound on their threads whatever the
 * number of plugins. One per core, at least 2 and at most MAX_SANDBOX_WORKERS: plugins in one Worker wait for each
 * other's calls, so more Workers mean calls in parallel on more cores and less waiting behind a slow neighbour; each
 * costs ~15 MB (its JavaScript heap and, once a plugin importing WASI is in it, preview2-shim's I/O Worker) and 2-4
 * threads.
 */
export const SANDBOX_WORKERS = Math.min(MAX_SANDBOX_WORKERS, Math.max(2, navigator.hardwareConcurrency || 1));
/**
 * Time a sandbox Worker gets to drop a plugin after its interrupt flag was raised (a timed-out call, a start past
 * its limit) before it is counted stuck and terminated with every plugin in it (pool-worker.ts). An instrumented
 * guest stops within microseconds; this only bounds a guest the interrupt cannot reach.
 */
export const SANDBOX_STOP_GRACE_MS = 1000;
/**
 * Components' transpiled JS a sandbox Worker evaluates before it is retired (pool.ts): an evaluated module cannot be
 * unloaded, so a Worker that has served many versions of plugins (a `prx plugins dev` session, reloads of changed
 * plugins) gives way to a fresh one once its last plugin has gone. A plugin restarting after a timeout is not a new one.
 */
export const MAX_ARTIFACTS_PER_WORKER = 64;
/**
 * A sandbox Worker collects its heap this long after a plugin was dropped from it (stops of a burst, such as a
 * runtime releasing every plugin, share one collection): sandbox/worker.ts.
 */
export const SANDBOX_GC_AFTER_STOP_MS = 100;
/**
 * After answering a call, a sandbox Worker with no other call running watches its mailbox this long (microseconds)
 * before it returns to sleep (plugins/hop/mailbox.ts): a call that comes in quick succession (the next member of a
 * middleware chain, a busy turn) then finds its thread awake instead of paying a wake-up of an idle CPU through the
 * hypervisor. It runs only after a call, so an idle Worker spends nothing; a call with none after it costs the Worker
 * this much CPU more. Measured on the 2-vCPU reference VM (`bun run bench middleware`, runs alternated with and
 * without it, load 1.5-2.4): runtime cost per call of a chain of 4, kit-built QuickJS 44-48 vs 74-80 us, QuickJS
 * 36-40 vs 22-82, WAT 15-41 vs 60-77; on one CPU unchanged. The next call came within the window in ~97% of the
 * chain's hand-overs, after ~15-30 us. A 50 us window measured the same for WAT and QuickJS but left the kit-built
 * chain its slow runs (up to 96 us) more often. A process that may run on one CPU does not watch (plugins/hop/linger.ts,
 * lingerWindowUs): pinned with `taskset -c 0` (kit-built chain, load 4.5-5.3), 8-11% of the watches ran their whole
 * window, the main thread not having preempted the Worker at its answer, which cost 9-16 us of the only CPU per call
 * on average (the runs' p50 within the noise).
 *
 * The main thread watches for the answer in turn (SANDBOX_ANSWER_WAIT_US).
 */
export const SANDBOX_LINGER_US = 100;
/**
 * After posting a call, the main thread watches the Worker's count of answers this long (microseconds) once its
 * turn's work is done, at most once per event-loop turn, before its event loop goes back to sleep: an answer that
 * comes within it is read without the wake-up of the main thread's idle CPU. A watch that sees nothing come makes
 * the next 1, 3, 7, ... calls go without one (plugins/hop/linger.ts: a guest that runs longer than the window, a
 * machine so busy that the Worker cannot run), and a process that may run on one CPU never watches. Measured on a
 * 2-vCPU VM whose wake-ups are slow (a bare Worker postMessage echo 97 us, against 14-17 us for a remote plugin's
 * hop that watches both ways), `bun run bench middleware` runs alternated with a window of 0, 50, 100 and 150 us
 * (load 1-2), runtime cost per call of a chain of 4: WAT 60-70 -> 14 / 26 / 24 us, QuickJS 90-103 -> 111 / 33 / 34,
 * kit-built (its guest runs ~190 us) 112-121 -> 116 / 111 / 125; `bun run bench wasm`, a component's tool call
 * minus the same call in-thread, 54 -> 37 us at 50. Tried before without the backing off (a watch after every call,
 * given up after 20 us when the Worker had not yet taken the call), on a VM whose wake-ups are fast, it cost more
 * than it saved (WAT 90-107 against 21-34 us at load 3.4-7.6): with both threads spinning, another process taking a
 * CPU leaves one of them spinning for a peer that cannot run, which the backing off now bounds. Atomics.wait cannot
 * bound a watch finer: on the main thread a 10 us timeout sleeps ~80 us.
 */
export const SANDBOX_ANSWER_WAIT_US = 100;
/** Successful calls whose in-sandbox execution time Sandbox.executionP50() looks at. */
export const EXECUTION_TIME_SAMPLES = 256;
/** Timeout of one outbound HTTP request made by a plugin. */
export const HTTP_REQUEST_TIMEOUT_MS = 10_000;
/** Largest HTTP response body a plugin may receive (bytes). */
export const MAX_HTTP_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Largest KV key (bytes of UTF-8). */
export const MAX_KV_KEY_BYTES = 1024;
/** Keys returned by one kv.list-keys call. */
export const MAX_KV_LIST_KEYS = 10_000;
/** One log message from a plugin is truncated to this many characters. */
export const MAX_LOG_MESSAGE_CHARS = 8 * 1024;
/** Open WebSocket connections per plugin sandbox. */
export const MAX_WEBSOCKETS_PER_PLUGIN = 8;
/** Received WebSocket messages buffered per connection; older ones are dropped beyond it. */
export const MAX_WEBSOCKET_BUFFERED_MESSAGES = 256;
/** Largest WebSocket message accepted or sent (bytes). */
export const MAX_WEBSOCKET_MESSAGE_BYTES = 1024 * 1024;
/** Longest wait of one websocket.receive call. */
export const MAX_WEBSOCKET_RECEIVE_WAIT_MS = 30_000;
/** Event subscriptions per plugin sandbox. */
export const MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN = 64;
/** WebAssembly page size. */
export const WASM_PAGE_BYTES = 64 * 1024;

/**
 * A WASM plugin's guest is stopped (its instances released from their sandbox Worker) after this long without a
 * call, and started again by the next: the default `idle_stop_ms` of remote plugins (REMOTE_DEFAULT_IDLE_STOP_MS; a test
 * holds them equal). on-demand/lazy-instance.ts.
 */
export const WASM_IDLE_STOP_MS = 300_000;

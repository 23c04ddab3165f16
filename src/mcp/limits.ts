/** Bounds of the MCP client and server. Per-server timeouts that users tune live in [mcp.servers.<name>]. */

import type { BackoffLimits, RestartLimits } from "../core/supervise/index.ts";

/**
 * One JSON-RPC message from a stdio server. Larger results are read whole (the registry then cuts what the model
 * sees to TOOL_MAX_OUTPUT_BYTES); a line past this stops the server: its call fails naming the limit.
 */
export const MCP_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Tools kept from one server; the rest are left out with a warning. */
export const MCP_MAX_TOOLS_PER_SERVER = 256;
/** Pages of a paginated list (tools, resources, prompts) read from one server. */
export const MCP_MAX_LIST_PAGES = 32;
/** A tool's input schema as JSON text; a larger one leaves the tool out with a warning. */
export const MCP_MAX_SCHEMA_BYTES = 64 * 1024;
/** A tool's description as the model sees it; longer ones are cut. */
export const MCP_MAX_DESCRIPTION_BYTES = 4096;
/** One stderr line of a stdio server in prx's log; longer lines are cut. */
export const MCP_STDERR_LINE_MAX_BYTES = 8 * 1024;
/** Recent stderr lines kept per server, quoted when it fails to start or dies. */
export const MCP_STDERR_TAIL_LINES = 5;
/** First wait before a crashed server is started again; it doubles per restart up to MCP_RESTART_MAX_DELAY_MS. */
export const MCP_RESTART_BASE_DELAY_MS = 250;
export const MCP_RESTART_MAX_DELAY_MS = 30_000;
/** Crashes within MCP_RESTART_WINDOW_MS after which a server is left down until a call asks for it again. */
export const MCP_MAX_RESTARTS_PER_WINDOW = 5;
export const MCP_RESTART_WINDOW_MS = 60_000;
/** The wait after each failed start in a row (a successful start clears the count). */
export const MCP_START_BACKOFF: Readonly<BackoffLimits> = { baseMs: MCP_RESTART_BASE_DELAY_MS, maxMs: MCP_RESTART_MAX_DELAY_MS };
/** Crashes: each one in the window doubles the wait; past the budget the server is left down until a call needs it. */
export const MCP_RESTART_LIMITS: Readonly<RestartLimits> = {
  ...MCP_START_BACKOFF,
  windowMs: MCP_RESTART_WINDOW_MS,
  maxExitsPerWindow: MCP_MAX_RESTARTS_PER_WINDOW,
  onCrashLoop: "give-up",
};
/** After SIGTERM, how long a stdio server's process group has to exit before SIGKILL. */
export const MCP_KILL_GRACE_MS = 2000;
/** Characters of the message an MCP client sends prx_chat. */
export const PRX_CHAT_MAX_CHARS = 100_000;
/**
 * When the client closes stdin (or a signal arrives), `prx mcp serve` answers the requests it has already read
 * for up to this long before it exits: a client that sends its last call and closes must still get the answer.
 */
export const MCP_SERVE_DRAIN_MS = 30_000;

/** Bounds of the tool layer. Per-tool limits that users tune live in [tools] of config.toml. */

/** Output (and error text) a tool may hand back to the model; the rest is cut with TRUNCATION_MARKER. */
export const TOOL_MAX_OUTPUT_BYTES = 64 * 1024;
/** JSON argument text accepted from the model for one call. */
export const TOOL_MAX_ARGUMENT_BYTES = 1024 * 1024;
/** Redirect hops http_request follows (each one re-checked against the allowlist). */
export const HTTP_MAX_REDIRECTS = 5;
/** Request body http_request may send. */
export const HTTP_MAX_REQUEST_BODY_BYTES = 1024 * 1024;
/** Arguments the shell tool accepts for one command (program included). */
export const SHELL_MAX_ARGS = 256;
/** Environment variables a shell command inherits; everything else (API keys!) is withheld. */
export const SHELL_ENV_PASSTHROUGH = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "TMPDIR"] as const;
/**
 * Bytes kept per output stream (stdout, stderr) of a shell command; the rest is read and dropped.
 * Both streams together stay under TOOL_MAX_OUTPUT_BYTES so the drop notice reaches the model.
 */
export const SHELL_MAX_OUTPUT_BYTES = 30 * 1024;
/** Characters of a page web_fetch returns when the model gives no max_chars. */
export const WEB_FETCH_DEFAULT_CHARS = 20_000;
/** The largest max_chars web_fetch accepts (its text stays under TOOL_MAX_OUTPUT_BYTES for ASCII pages). */
export const WEB_FETCH_MAX_CHARS = 60_000;
/** Characters of one web_search query. */
export const WEB_SEARCH_MAX_QUERY_CHARS = 400;
/** Bytes of a search backend's answer read (a page of results is a few tens of KiB). */
export const WEB_SEARCH_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
/** Characters of one message_send text (the channel splits it at its platform's limit). */
export const MESSAGE_SEND_MAX_CHARS = 16_000;
/** Sessions one sessions_list call returns at most (and by default SESSIONS_LIST_DEFAULT_LIMIT). */
export const SESSIONS_LIST_MAX_LIMIT = 50;
export const SESSIONS_LIST_DEFAULT_LIMIT = 20;
/** Messages one sessions_history call returns at most (and by default SESSIONS_HISTORY_DEFAULT_LIMIT), newest kept. */
export const SESSIONS_HISTORY_MAX_MESSAGES = 50;
export const SESSIONS_HISTORY_DEFAULT_LIMIT = 20;
/** Characters of one message's content in sessions_history; the rest is cut with a note. */
export const SESSIONS_HISTORY_MAX_MESSAGE_CHARS = 4_000;
/** Characters of message content one sessions_history answer carries in all; the oldest messages are left out first. */
export const SESSIONS_HISTORY_MAX_CHARS = 40_000;
/** Characters of a delegated task and of a helper's system prompt. */
export const DELEGATE_MAX_TASK_CHARS = 20_000;
export const DELEGATE_MAX_SYSTEM_PROMPT_CHARS = 20_000;
/** A helper turn's budget: tool rounds, tokens and seconds (defaults, and the most a call may ask for). */
export const DELEGATE_DEFAULT_ITERATIONS = 5;
export const DELEGATE_MAX_ITERATIONS = 20;
export const DELEGATE_DEFAULT_TOKENS = 50_000;
export const DELEGATE_MAX_TOKENS = 500_000;
export const DELEGATE_DEFAULT_TIMEOUT_S = 120;
export const DELEGATE_MAX_TIMEOUT_S = 900;
/** Tools a delegate call may name for its helper. */
export const DELEGATE_MAX_TOOLS = 64;
/** Schema violations named in one refusal of a call's arguments (the rest are counted, not listed). */
export const TOOL_ARGUMENT_ERRORS_LISTED = 5;

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
/** Schema violations named in one refusal of a call's arguments (the rest are counted, not listed). */
export const TOOL_ARGUMENT_ERRORS_LISTED = 5;

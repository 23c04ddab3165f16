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

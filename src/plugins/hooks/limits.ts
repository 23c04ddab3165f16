/** Bounds of native command hooks (hooks.json). Each one is tested at the edge in test/plugins/hooks. */
export const HOOKS_FILE_MAX_BYTES = 256 * 1024;
/** Actions across all events of one hooks.json. */
export const HOOKS_MAX_ACTIONS = 256;
export const HOOK_MAX_ARGS = 128;
export const HOOK_MAX_ENV = 128;
/** JSON payload given to a hook on stdin and in its payload file. */
export const HOOK_PAYLOAD_MAX_BYTES = 4 * 1024 * 1024;
/** Captured stderr (and stdout) per run; the rest is read and discarded so the child never blocks. */
export const HOOK_STDERR_MAX_BYTES = 16 * 1024;
export const HOOK_STDOUT_MAX_BYTES = 16 * 1024;
export const HOOK_TIMEOUT_MIN_MS = 1;
export const HOOK_TIMEOUT_MAX_MS = 300_000;
export const HOOK_TIMEOUT_DEFAULT_MS = 5000;
/** After a hook exits, how long to keep reading pipes that a process it left behind still holds open. */
export const HOOK_PIPE_DRAIN_MS = 250;
/** Environment names a hook may not set: they change what the child loads or where it looks. */
export const HOOK_ENV_DENYLIST = ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PATH", "HOME"] as const;
export const HOOK_ENV_DENIED_PREFIXES = ["DYLD_"] as const;
/** Set by prx for every run; a hook's env may not override them. */
export const HOOK_ENV_RESERVED = ["PRX_HOOK_EVENT", "PRX_HOOK_PAYLOAD_FILE"] as const;

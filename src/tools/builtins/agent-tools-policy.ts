import type { BuiltinToolsOptions } from "./types.ts";

/** Why message_send refuses every call under this config (checked without loading the tool); undefined when it can run. */
export function messageSendUnavailable(options: BuiltinToolsOptions): string | undefined {
  const names = Object.keys(options.config.message_send.targets);
  if (names.length === 0) {
    return 'message_send has no targets: add one to config.toml, e.g. [tools.message_send.targets.me] channel = "telegram", chat = "<chat id>"';
  }
  return undefined;
}

/** Why sessions_list and sessions_history refuse (a host without sessions). */
export function sessionsUnavailable(options: BuiltinToolsOptions): string | undefined {
  return options.sessions ? undefined : "sessions are not readable here (no session store)";
}

/** Why delegate refuses every call under this config. */
export function delegateUnavailable(options: BuiltinToolsOptions): string | undefined {
  if (options.config.delegate.max_depth === 0) return "delegate is off: [tools.delegate] max_depth = 0";
  if (!options.sessionLinks) return "delegate needs the session store, which this host does not have";
  return undefined;
}

import type { BuiltinToolsOptions } from "./types.ts";

/** Why the cron tool refuses every call: the process has no workspace storage to keep jobs in. */
export function cronUnavailable(options: Pick<BuiltinToolsOptions, "cron">): string | undefined {
  return options.cron ? undefined : "scheduling needs the workspace's storage, which this process did not open";
}

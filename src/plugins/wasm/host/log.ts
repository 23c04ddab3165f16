import { MAX_LOG_MESSAGE_CHARS } from "../limits.ts";
import type { HostContext } from "./context.ts";

/** prx:host/log — into the host logger under the plugin's name. Auto-granted. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error"] as const;
export type GuestLogLevel = (typeof LOG_LEVELS)[number];

export function truncateLog(message: string): string {
  return message.length > MAX_LOG_MESSAGE_CHARS ? message.slice(0, MAX_LOG_MESSAGE_CHARS) + "…(truncated)" : message;
}

export function logImports(ctx: HostContext) {
  return {
    log: (level: string, message: string) => {
      const lvl = (LOG_LEVELS as readonly string[]).includes(level) ? (level as GuestLogLevel) : "info";
      ctx.log(lvl, truncateLog(String(message)));
    },
  };
}

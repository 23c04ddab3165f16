import { z } from "zod";
import {
  REMOTE_DEFAULT_IDLE_STOP_MS,
  REMOTE_DEFAULT_READY_TIMEOUT_MS,
  REMOTE_MAX_IDLE_STOP_MS,
  REMOTE_DEFAULT_RPC_TIMEOUT_MS,
  REMOTE_MAX_READY_TIMEOUT_MS,
  REMOTE_MAX_RPC_TIMEOUT_MS,
  REMOTE_MIN_READY_TIMEOUT_MS,
  REMOTE_MIN_RPC_TIMEOUT_MS,
} from "./limits.ts";

export const RemoteTransports = ["worker", "process"] as const;
export type RemoteTransport = (typeof RemoteTransports)[number];

/**
 * The `[remote]` section of a plugin.toml whose `[plugin] runtime = "remote"`. The manifest parser
 * (src/plugins/manifest.ts) imports this schema; the entry path is checked to stay inside the plugin directory there.
 */
export const RemoteSectionSchema = z.strictObject({
  entry: z
    .string()
    .min(1)
    .refine((p) => !p.startsWith("/") && !p.split(/[\\/]/).includes(".."), {
      message: "entry must be a relative path inside the plugin directory",
    }),
  transport: z.enum(RemoteTransports).default("worker"),
  /** runtime.getSetting values: any TOML value (tables and arrays reach the plugin as objects, as in a character). */
  settings: z.record(z.string().min(1), z.json()).default({}),
  rpc_timeout_ms: z
    .number()
    .int()
    .min(REMOTE_MIN_RPC_TIMEOUT_MS)
    .max(REMOTE_MAX_RPC_TIMEOUT_MS)
    .default(REMOTE_DEFAULT_RPC_TIMEOUT_MS),
  ready_timeout_ms: z
    .number()
    .int()
    .min(REMOTE_MIN_READY_TIMEOUT_MS)
    .max(REMOTE_MAX_READY_TIMEOUT_MS)
    .default(REMOTE_DEFAULT_READY_TIMEOUT_MS),
  /** Stop the plugin after this long without a call (it starts again on the next); 0: keep it running. */
  idle_stop_ms: z.number().int().min(0).max(REMOTE_MAX_IDLE_STOP_MS).default(REMOTE_DEFAULT_IDLE_STOP_MS),
});
export type RemoteSection = z.infer<typeof RemoteSectionSchema>;

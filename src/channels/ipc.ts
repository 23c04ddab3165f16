/**
 * The messages between `prx gateway` and its channel processes over Bun's IPC (`Bun.spawn({ ipc })`, JSON
 * serialization): one zod schema per message, parsed on receipt by both sides (the channel process checks the forwarded
 * request by hand in front of its schema: fast-accept.ts).
 */
import { z } from "zod";
import { FORWARDED_QUERY_MAX_CHARS } from "./limits.ts";

const ForwardedRequestSchema = z.strictObject({
  method: z.string(),
  query: z.string().max(FORWARDED_QUERY_MAX_CHARS).optional(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
});
const ForwardedResponseSchema = z.strictObject({
  status: z.number().int().min(100).max(599),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
});

export const ReloadPluginsSchema = z.strictObject({
  type: z.literal("reload_plugins"),
  /** The plugin the gateway reloaded, or null for a full reload. */
  name: z.string().nullable(),
  generation: z.number().int(),
});
export const HttpRequestSchema = z.strictObject({ type: z.literal("http"), id: z.number().int(), request: ForwardedRequestSchema });
export const StopSchema = z.strictObject({ type: z.literal("stop") });
/** The gateway applied a new config.toml: the process reads it again and applies it to its agent host. */
export const ReloadConfigSchema = z.strictObject({ type: z.literal("reload_config") });
export const ParentMessageSchema = z.discriminatedUnion("type", [ReloadPluginsSchema, ReloadConfigSchema, HttpRequestSchema, StopSchema]);

export const ChannelStatsSchema = z.strictObject({
  inbound: z.number(),
  answered: z.number(),
  duplicates: z.number(),
  ignored: z.number(),
  refused: z.number(),
  failed: z.number(),
  /** Inbound requests refused for a missing or forged signature (absent from processes that predate it). */
  rejected: z.number().optional(),
  lastInbound: z.number().nullable(),
  lastOutbound: z.number().nullable(),
  lastError: z.string().nullable(),
  /** When the last error happened (epoch ms). */
  lastErrorAt: z.number().nullable(),
});
/** Connected to the platform: the process takes messages from here on (they wait while its agent host opens). */
export const ReadySchema = z.strictObject({ type: z.literal("ready"), pid: z.number().int() });
/** The agent host is open, with its plugin runtime at this generation (null without one): messages are answered. */
export const OpenedSchema = z.strictObject({ type: z.literal("opened"), generation: z.number().int().nullable() });
export const StatusSchema = z.strictObject({
  type: z.literal("status"),
  health: z.strictObject({ ok: z.boolean(), detail: z.string() }),
  stats: ChannelStatsSchema,
});
/** A warning or error of the channel (a platform's failed answer, a failed turn): its last error from now on. */
export const ErrorSchema = z.strictObject({ type: z.literal("error"), message: z.string(), at: z.number() });
export const ReloadedSchema = z.strictObject({
  type: z.literal("reloaded"),
  generation: z.number().int().nullable(),
  error: z.string().nullable(),
});
export const HttpResultSchema = z.strictObject({ type: z.literal("http_result"), id: z.number().int(), response: ForwardedResponseSchema });
export const ChildMessageSchema = z.discriminatedUnion("type", [ReadySchema, OpenedSchema, StatusSchema, ErrorSchema, ReloadedSchema, HttpResultSchema]);

export type ParentMessage = z.infer<typeof ParentMessageSchema>;
export type ChildMessage = z.infer<typeof ChildMessageSchema>;
export type ChannelStatsWire = z.infer<typeof ChannelStatsSchema>;

import { z } from "zod";
import { Stages } from "../../../contracts/envelopes.ts";

const id = z.number().int().nonnegative();

/**
 * The messages between `@prx/kit/test` (in a plugin's `bun test`) and the sandbox process it starts
 * (`prx __plugin-sandbox`), over Bun's IPC channel as JSON: one request schema per operation, and one reply shape.
 * guest/test.ts and guest/harness-types.ts mirror them as plain types (a type test keeps them equal).
 */
export const SandboxRequestSchema = z.discriminatedUnion("op", [
  z.strictObject({
    id,
    op: z.literal("load"),
    dir: z.string().min(1),
    config: z.record(z.string(), z.string()),
    grant: z.array(z.string().min(1)).optional(),
  }),
  z.strictObject({ id, op: z.literal("tool"), name: z.string().nullable(), args: z.record(z.string(), z.unknown()) }),
  z.strictObject({ id, op: z.literal("middleware"), stage: z.enum(Stages), envelope: z.record(z.string(), z.unknown()) }),
  z.strictObject({ id, op: z.literal("emit"), topic: z.string().min(1), payload: z.unknown() }),
  z.strictObject({ id, op: z.literal("cron"), name: z.string().nullable() }),
  z.strictObject({
    id,
    op: z.literal("chat"),
    messages: z.array(z.strictObject({ role: z.enum(["system", "user", "assistant", "tool"]), content: z.string() })),
    model: z.string(),
    temperature: z.number(),
  }),
  z.strictObject({
    id,
    op: z.literal("storage"),
    action: z.enum(["store", "recall", "forget", "count", "health"]),
    key: z.string().optional(),
    content: z.string().optional(),
    category: z.string().optional(),
    sessionId: z.string().nullable().optional(),
    query: z.string().optional(),
    limit: z.number().int().positive().optional(),
  }),
  z.strictObject({
    id,
    op: z.literal("kv"),
    action: z.enum(["get", "set", "keys"]),
    key: z.string().optional(),
    value: z.string().optional(),
    prefix: z.string().optional(),
  }),
  z.strictObject({ id, op: z.literal("logs") }),
  z.strictObject({ id, op: z.literal("events") }),
  z.strictObject({ id, op: z.literal("close") }),
]);
export type SandboxRequest = z.infer<typeof SandboxRequestSchema>;

export const SandboxReplySchema = z.discriminatedUnion("ok", [
  z.strictObject({ id: z.number().int(), ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ id: z.number().int(), ok: z.literal(false), error: z.strictObject({ code: z.string(), message: z.string() }) }),
]);
export type SandboxReply = z.infer<typeof SandboxReplySchema>;

export const LoadedPluginSchema = z.strictObject({
  name: z.string(),
  dir: z.string(),
  capabilities: z.array(z.strictObject({ type: z.string(), name: z.string() })),
  tools: z.array(z.strictObject({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
});
export type LoadedPluginInfo = z.infer<typeof LoadedPluginSchema>;

export const MiddlewareResultSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("continue"), envelope: z.record(z.string(), z.unknown()) }),
  z.strictObject({ action: z.literal("block"), reason: z.string() }),
  z.strictObject({ action: z.literal("failed"), failure: z.string(), error: z.string() }),
]);
export type MiddlewareResultInfo = z.infer<typeof MiddlewareResultSchema>;

export const ToolCallResultSchema = z.strictObject({ ok: z.boolean(), output: z.string(), error: z.string().nullable(), messages: z.array(z.string()) });
export type ToolCallResultInfo = z.infer<typeof ToolCallResultSchema>;

export const ProviderReplySchema = z.strictObject({
  text: z.string().nullable(),
  toolCalls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })),
});
export type ProviderReplyInfo = z.infer<typeof ProviderReplySchema>;

export const RecalledMemorySchema = z.strictObject({ key: z.string(), content: z.string(), category: z.string(), score: z.number().nullable() });
export type RecalledMemoryInfo = z.infer<typeof RecalledMemorySchema>;

export const PublishedEventSchema = z.strictObject({ topic: z.string(), payload: z.unknown() });
export type PublishedEventInfo = z.infer<typeof PublishedEventSchema>;

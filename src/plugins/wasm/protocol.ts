import { z } from "zod";
import { CapabilityTypes, PluginKinds } from "../types.ts";

/** Messages between the main thread (sandbox.ts) and a plugin's sandbox Worker (sandbox-worker.ts). */

const Capability = z.object({ type: z.enum(CapabilityTypes), name: z.string() });

export const SandboxInitSchema = z.object({
  type: z.literal("init"),
  plugin: z.object({
    name: z.string(),
    kind: z.enum(PluginKinds),
    entryPath: z.string(),
    capabilities: z.array(Capability),
    granted: z.array(z.string()),
    config: z.record(z.string(), z.string()),
    httpAllowlist: z.array(z.string()),
    maxMemoryMb: z.number().positive(),
    maxHttpRequestsPerCall: z.number().int().nonnegative(),
    maxKvStorageMb: z.number().nonnegative(),
  }),
  /** For components: directory holding the cached transpiled output. */
  artifactDir: z.string().nullable(),
  /** Host log threshold when the sandbox started: guest log lines below it are dropped in the worker. */
  logLevel: z.enum(["trace", "debug", "info", "warn", "error", "silent"]),
  /** SQLite file holding plugin KV (opened by the worker, WAL). */
  dbPath: z.string(),
});
export type SandboxInit = z.infer<typeof SandboxInitSchema>;

const SerializedError = z.object({ code: z.string(), message: z.string(), hint: z.string().optional() });
export type SerializedError = z.infer<typeof SerializedError>;

export const ToWorkerSchema = z.discriminatedUnion("type", [
  SandboxInitSchema,
  z.object({
    type: z.literal("call"),
    id: z.number(),
    cap: z.number().int(),
    fn: z.string(),
    args: z.array(z.unknown()),
  }),
  z.object({
    type: z.literal("rpc-result"),
    id: z.number(),
    ok: z.boolean(),
    value: z.unknown(),
    error: z.string().optional(),
  }),
]);
export type ToWorker = z.infer<typeof ToWorkerSchema>;

export const RpcMethods = ["memory.store", "memory.recall", "events.subscribe", "events.unsubscribe"] as const;
export type RpcMethod = (typeof RpcMethods)[number];

export const FromWorkerSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("init-error"), error: SerializedError }),
  z.object({
    type: z.literal("result"),
    id: z.number(),
    ok: z.boolean(),
    value: z.unknown(),
    error: SerializedError.optional(),
  }),
  z.object({ type: z.literal("log"), level: z.enum(["trace", "debug", "info", "warn", "error"]), message: z.string() }),
  z.object({ type: z.literal("publish"), topic: z.string(), payload: z.string() }),
  z.object({
    type: z.literal("rpc"),
    id: z.number(),
    cap: z.number().int(),
    method: z.enum(RpcMethods),
    args: z.array(z.unknown()),
  }),
]);
export type FromWorker = z.infer<typeof FromWorkerSchema>;
